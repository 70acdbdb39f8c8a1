import { Type, type Static } from '@sinclair/typebox';
import { modelSettings } from '../../core/config/config.schema.ts';

/** A model entry of `backend: whisper-cpp`: a Whisper model in whisper.cpp's ggml format, run in this process. */
export const WhisperCppSettingsSchema = Type.Object(
  {
    backend: Type.Literal('whisper-cpp'),
    modelPath: Type.String({ minLength: 1, description: 'Whisper weights in ggml format (ggml-*.bin), relative to the config file, or an hf:// URI.' }),
    language: Type.Optional(Type.String({ minLength: 2, maxLength: 8, description: "Spoken language code, e.g. 'zh' (default: detected per request)." })),
    threads: Type.Optional(Type.Integer({ minimum: 1, description: 'CPU threads (default half the cores).' })),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1000, description: 'Longest one transcription may take (default 120000).' })),
    maxConcurrency: Type.Optional(modelSettings.maxConcurrency),
  },
  { additionalProperties: false },
);

export type WhisperCppSettings = Static<typeof WhisperCppSettingsSchema>;
