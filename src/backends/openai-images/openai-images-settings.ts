import { Type, type Static } from '@sinclair/typebox';
import { openAiServerSettings } from '../engine-http/engine-settings.ts';

/** A model entry of `backend: openai-images`: an OpenAI-compatible image generation server. */
export const OpenAiImagesSettingsSchema = Type.Object(
  {
    backend: Type.Literal('openai-images'),
    ...openAiServerSettings,
  },
  { additionalProperties: false },
);

export type OpenAiImagesSettings = Static<typeof OpenAiImagesSettingsSchema>;
