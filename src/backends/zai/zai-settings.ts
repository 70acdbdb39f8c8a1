import { Type, type Static } from '@sinclair/typebox';
import { modelSettings } from '../../core/config/config.schema.ts';
import { httpEngineSettings } from '../engine-http/engine-settings.ts';

/** A model entry of `backend: zai`: the upstream cloud platform (baseUrl defaults to its public address). */
export const ZaiSettingsSchema = Type.Object(
  {
    backend: Type.Literal('zai'),
    apiKey: httpEngineSettings.apiKey,
    baseUrl: Type.Optional(httpEngineSettings.baseUrl),
    upstreamModel: Type.Optional(httpEngineSettings.upstreamModel),
    timeoutMs: Type.Optional(modelSettings.timeoutMs),
    maxResponseBytes: Type.Optional(httpEngineSettings.maxResponseBytes),
    pollIntervalMs: Type.Optional(httpEngineSettings.pollIntervalMs),
    maxConcurrency: Type.Optional(modelSettings.maxConcurrency),
    tokenizerPath: Type.Optional(modelSettings.tokenizerPath),
    chatTemplatePath: Type.Optional(modelSettings.chatTemplatePath),
  },
  { additionalProperties: false },
);

export type ZaiSettings = Static<typeof ZaiSettingsSchema>;
