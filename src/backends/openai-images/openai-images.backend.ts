import type { BackendFactory } from '../../core/backends/backend.ts';
import type { OpenAiImagesSettings } from './openai-images-settings.ts';
import { defaultImageTimeoutMs } from '../../core/media/media-timeouts.ts';
import { EngineMediaDownload } from '../../tools/media/engine-media-download.ts';
import { engineHttpError } from '../engine-http/engine-http-error.ts';
import { OpenAiImageGenerator } from './openai-image-generator.ts';
import { probeModelList } from '../engine-http/probe-engine.ts';

/** An OpenAI-compatible image generation server: `POST {baseUrl}/images/generations`. */
export const createOpenAiImagesBackend: BackendFactory<OpenAiImagesSettings> = ({ modelName, entry }) => {
  const baseUrl = entry.baseUrl.replace(/\/+$/, '');
  const download = new EngineMediaDownload(modelName, baseUrl);
  const engine = {
    modelName,
    apiKey: entry.apiKey,
    timeoutMs: entry.timeoutMs ?? defaultImageTimeoutMs,
    maxResponseBytes: entry.maxResponseBytes,
    httpError: (status: number, text: string) => engineHttpError(modelName, status, text),
  };
  return {
    image: new OpenAiImageGenerator(engine, baseUrl, entry.upstreamModel ?? modelName, download),
    // Image servers in front of diffusers often lack /models: answering at all is up.
    probe: (signal) => probeModelList(baseUrl, entry.apiKey, signal, true),
    close: () => download.close(),
  };
};
