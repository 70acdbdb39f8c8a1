import type { BackendFactory } from '../../core/backends/backend.ts';
import type { ZaiSettings } from './zai-settings.ts';
import { defaultVideoTimeoutMs } from '../../core/media/media-timeouts.ts';
import { EngineMediaDownload } from '../../tools/media/engine-media-download.ts';
import { ChatCompletionsEngine } from '../engine-http/chat-completions-engine.ts';
import { defaultEngineTimeoutMs, type EngineConnection } from '../engine-http/engine-request.ts';
import { buildZaiChatBody } from './zai-chat-body.ts';
import { zaiHttpError } from './zai-error.ts';
import { ZaiAsyncTask } from './zai-async-task.ts';
import { ZaiImageGenerator } from './zai-images.ts';
import { ZaiLayoutParser } from './zai-layout-parser.ts';
import { ZaiVideoGenerator } from './zai-videos.ts';
import { ZaiSearch } from './zai-search.ts';
import { ZaiTokenizer } from './zai-tokenizer.ts';
import { ZaiTranscriber } from './zai-transcriber.ts';
import { probeModelList } from '../engine-http/probe-engine.ts';

const defaultZaiBaseUrl = 'https://api.z.ai/api/paas/v4';

/**
 * The upstream cloud platform itself: its answers already have the platform's shape (OpenAI
 * chunks plus reasoning_content), so the OpenAI-compatible reading is shared; body and error
 * codes are the platform's own.
 */
export const createZaiBackend: BackendFactory<ZaiSettings> = ({ modelName, entry }) => {
  const baseUrl = (entry.baseUrl ?? defaultZaiBaseUrl).replace(/\/+$/, '');
  const upstreamModel = entry.upstreamModel ?? modelName;
  const engine: EngineConnection = {
    modelName,
    apiKey: entry.apiKey,
    timeoutMs: entry.timeoutMs ?? defaultEngineTimeoutMs,
    maxResponseBytes: entry.maxResponseBytes,
    httpError: (status, text) => zaiHttpError(modelName, status, text),
  };
  // Upstream image and video tasks finish in seconds to minutes; polling faster gains nothing.
  const tasks = new ZaiAsyncTask(engine, baseUrl, entry.pollIntervalMs ?? 2_000);
  const download = new EngineMediaDownload(modelName, baseUrl);
  return {
    chat: new ChatCompletionsEngine(engine, `${baseUrl}/chat/completions`, (request, stream) => buildZaiChatBody(request, upstreamModel, stream)),
    tokenizer: new ZaiTokenizer(engine, baseUrl, upstreamModel),
    image: new ZaiImageGenerator(engine, baseUrl, upstreamModel, tasks, download),
    video: new ZaiVideoGenerator(modelName, upstreamModel, entry.timeoutMs ?? defaultVideoTimeoutMs, tasks, download),
    search: new ZaiSearch(engine, baseUrl, upstreamModel),
    transcribe: new ZaiTranscriber(engine, baseUrl, upstreamModel),
    layout: new ZaiLayoutParser(engine, baseUrl, upstreamModel),
    // The cloud API is up when it answers; a model list, where it serves one, is reported. A refused apiKey fails.
    probe: (signal) => probeModelList(baseUrl, entry.apiKey, signal, true),
    close: () => download.close(),
  };
};
