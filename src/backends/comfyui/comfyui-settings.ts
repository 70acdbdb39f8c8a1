import { Type, type Static } from '@sinclair/typebox';
import { modelSettings } from '../../core/config/config.schema.ts';
import { httpEngineSettings } from '../engine-http/engine-settings.ts';

/** A model entry of `backend: comfyui`: a ComfyUI server running the model's workflow. */
export const ComfyUiSettingsSchema = Type.Object(
  {
    backend: Type.Literal('comfyui'),
    baseUrl: httpEngineSettings.baseUrl,
    workflow: Type.String({
      minLength: 1,
      description: 'Workflow JSON file in API format with {{prompt}}, {{width}}, {{seed}}... placeholders (relative to the config file).',
    }),
    apiKey: Type.Optional(httpEngineSettings.apiKey),
    timeoutMs: Type.Optional(modelSettings.timeoutMs),
    maxResponseBytes: Type.Optional(httpEngineSettings.maxResponseBytes),
    pollIntervalMs: Type.Optional(httpEngineSettings.pollIntervalMs),
    maxConcurrency: Type.Optional(modelSettings.maxConcurrency),
  },
  { additionalProperties: false },
);

export type ComfyUiSettings = Static<typeof ComfyUiSettingsSchema>;
