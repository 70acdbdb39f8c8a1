import { Type, type Static } from '@sinclair/typebox';
import { openAiServerSettings } from '../engine-http/engine-settings.ts';

/** A model entry of `backend: openai-transcription`: an OpenAI-compatible transcription server. */
export const OpenAiTranscriptionSettingsSchema = Type.Object(
  {
    backend: Type.Literal('openai-transcription'),
    ...openAiServerSettings,
  },
  { additionalProperties: false },
);

export type OpenAiTranscriptionSettings = Static<typeof OpenAiTranscriptionSettingsSchema>;
