import { Type, type Static } from '@sinclair/typebox';
import { modelSettings } from '../../core/config/config.schema.ts';
import { httpEngineSettings } from '../http-engine-settings.ts';
import { classifyDirectionSetting } from '../paddle-ocr/paddle-ocr-settings.ts';

/** A model entry of `backend: glm-ocr`: in-process layout, regions read by GLM-OCR on a vision server. */
export const GlmOcrSettingsSchema = Type.Object(
  {
    backend: Type.Literal('glm-ocr'),
    baseUrl: httpEngineSettings.baseUrl,
    apiKey: Type.Optional(httpEngineSettings.apiKey),
    upstreamModel: Type.Optional(httpEngineSettings.upstreamModel),
    timeoutMs: Type.Optional(modelSettings.timeoutMs),
    maxResponseBytes: Type.Optional(httpEngineSettings.maxResponseBytes),
    classifyDirection: Type.Optional(classifyDirectionSetting),
    maxConcurrency: Type.Optional(modelSettings.maxConcurrency),
  },
  { additionalProperties: false },
);

export type GlmOcrSettings = Static<typeof GlmOcrSettingsSchema>;
