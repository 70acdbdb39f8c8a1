import { Type, type Static } from '@sinclair/typebox';
import { modelSettings } from '../../core/config/config.schema.ts';
import { httpEngineSettings } from '../http-engine-settings.ts';

/** A model entry of `backend: openai-transcription`: an OpenAI-compatible transcription server. */
export const OpenAiTranscriptionSettingsSchema = Type.Object(
  {
    backend: Type.Literal('openai-transcription'),
    baseUrl: httpEngineSettings.baseUrl,
    apiKey: Type.Optional(httpEngineSettings.apiKey),
    upstreamModel: Type.Optional(httpEngineSettings.upstreamModel),
    timeoutMs: Type.Optional(modelSettings.timeoutMs),
    maxResponseBytes: Type.Optional(httpEngineSettings.maxResponseBytes),
    maxConcurrency: Type.Optional(modelSettings.maxConcurrency),
  },
  { additionalProperties: false },
);

export type OpenAiTranscriptionSettings = Static<typeof OpenAiTranscriptionSettingsSchema>;
