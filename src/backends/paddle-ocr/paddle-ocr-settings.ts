import { Type, type Static } from '@sinclair/typebox';
import { modelSettings } from '../../core/config/config.schema.ts';
import { classifyDirectionSetting } from '../engine-http/engine-settings.ts';

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
