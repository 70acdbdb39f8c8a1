import { Type, type Static } from '@sinclair/typebox';
import { modelSettings } from '../../core/config/config.schema.ts';

/** Shared with glm-ocr, whose page layout comes from the same PaddleOCR pipeline. */
export const classifyDirectionSetting = Type.Boolean({
  description: "Run PaddleOCR's direction classifier, so pages that lie upside down read right (default false: about 0.3 s a page).",
});

/** A model entry of `backend: paddle-ocr`: layout parsing in process, nothing to reach. */
export const PaddleOcrSettingsSchema = Type.Object(
  {
    backend: Type.Literal('paddle-ocr'),
    classifyDirection: Type.Optional(classifyDirectionSetting),
    maxConcurrency: Type.Optional(modelSettings.maxConcurrency),
  },
  { additionalProperties: false },
);

export type PaddleOcrSettings = Static<typeof PaddleOcrSettingsSchema>;
