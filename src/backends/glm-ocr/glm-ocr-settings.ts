import { Type, type Static } from '@sinclair/typebox';
import { classifyDirectionSetting, openAiServerSettings } from '../engine-http/engine-settings.ts';

/** A model entry of `backend: glm-ocr`: in-process layout, regions read by GLM-OCR on a vision server. */
export const GlmOcrSettingsSchema = Type.Object(
  {
    backend: Type.Literal('glm-ocr'),
    ...openAiServerSettings,
    classifyDirection: Type.Optional(classifyDirectionSetting),
  },
  { additionalProperties: false },
);

export type GlmOcrSettings = Static<typeof GlmOcrSettingsSchema>;
