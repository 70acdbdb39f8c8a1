import { Type, type Static } from '@sinclair/typebox';
import { modelSettings } from '../../core/config/config.schema.ts';
import { httpEngineSettings } from '../engine-http/engine-settings.ts';

/** A search engine entry of `backend: searxng`: a SearXNG instance with its JSON format enabled. */
export const SearxngSettingsSchema = Type.Object(
  {
    backend: Type.Literal('searxng'),
    baseUrl: httpEngineSettings.baseUrl,
    apiKey: Type.Optional(httpEngineSettings.apiKey),
    timeoutMs: Type.Optional(modelSettings.timeoutMs),
    maxResponseBytes: Type.Optional(httpEngineSettings.maxResponseBytes),
  },
  { additionalProperties: false },
);

export type SearxngSettings = Static<typeof SearxngSettingsSchema>;
