import { resolve } from 'node:path';
import type { BackendFactory } from '../../core/backends/backend.ts';
import type { ComfyUiSettings } from './comfyui-settings.ts';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import { defaultImageTimeoutMs, defaultVideoTimeoutMs } from '../../core/media/media-timeouts.ts';
import { ComfyUiClient } from './comfyui-client.ts';
import { probeComfyUi } from './comfyui-probe.ts';
import { ComfyImageGenerator } from './comfyui-image-generator.ts';
import { ComfyVideoGenerator } from './comfyui-video-generator.ts';
import { ComfyWorkflow } from './comfyui-workflow.ts';

/** ComfyUI keeps no push channel open for us (that is its websocket); a second between polls costs nothing. */
const defaultPollIntervalMs = 1_000;

/**
 * A ComfyUI server running the model's workflow (`workflow`, a JSON file in API format relative
 * to the config file, with `{{placeholders}}`: see comfyui-workflow.ts). The same workflow serves
 * image generation (its saved images) and video generation (its saved video): which one a model
 * does is the operator's choice of workflow and endpoint.
 */
export const createComfyUiBackend: BackendFactory<ComfyUiSettings> = ({ modelName, entry, configDir }) => {
  let workflow: ComfyWorkflow;
  try {
    workflow = ComfyWorkflow.load(resolve(configDir, entry.workflow));
  } catch (error) {
    throw new EngineFailure('misconfigured', modelName, `Model '${modelName}' (backend comfyui) cannot be used: ${(error as Error).message}.`);
  }
  const baseUrl = entry.baseUrl.replace(/\/+$/, '');
  const client = new ComfyUiClient(baseUrl, modelName, entry.apiKey, entry.maxResponseBytes);
  const common = { modelName, workflow, client, pollIntervalMs: entry.pollIntervalMs ?? defaultPollIntervalMs };
  return {
    image: new ComfyImageGenerator({ ...common, timeoutMs: entry.timeoutMs ?? defaultImageTimeoutMs }),
    video: new ComfyVideoGenerator({ ...common, timeoutMs: entry.timeoutMs ?? defaultVideoTimeoutMs }),
    probe: (signal) => probeComfyUi(baseUrl, entry.apiKey, signal),
  };
};
