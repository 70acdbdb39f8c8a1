import { Type, type Static } from '@sinclair/typebox';
import { MultipartFile } from '../../http/multipart.ts';
import { ModelName, RequestId, StringEnum, UserId } from '../shared/common.schema.ts';

/** Transcription audio: at most 25 MB (the platform's limit), for a file part and for decoded file_base64. */
export const maxAudioBytes = 25 * 1024 * 1024;

export const audioExtensions = ['.wav', '.mp3'] as const;

/**
 * The text fields of POST /paas/v4/audio/transcriptions (field names from
 * docs/wire.md §1.4). Validated by `readMultipartForm`, which coerces the text values.
 */
export const AudioTranscriptionFields = Type.Object({
  model: ModelName('glm-asr-2512, or a transcription model of the config catalog.'),
  file_base64: Type.Optional(
    Type.String({ minLength: 1, description: 'Base64 audio (optionally a data URL), at most 25 MB decoded; ignored when `file` is sent.' }),
  ),
  prompt: Type.Optional(Type.String({ maxLength: 8000, description: 'Earlier transcript as context for long audio; at most 8000 characters.' })),
  hotwords: Type.Optional(
    Type.Array(Type.String(), {
      maxItems: 100,
      description: 'Domain words; sent as repeated `hotwords[]` or `hotwords` fields, or one field holding a JSON array.',
    }),
  ),
  stream: Type.Optional(Type.Boolean({ description: 'Default false; true answers with an event stream of AudioTranscriptionStreamEvent.' })),
  request_id: Type.Optional(RequestId),
  user_id: Type.Optional(UserId),
  sensitive_word_check: Type.Optional(
    Type.Object(
      { type: Type.Optional(Type.String()), status: Type.Optional(Type.String()) },
      { description: 'Sent by the Python SDK as sensitive_word_check[type] and [status]; accepted and ignored.' },
    ),
  ),
});

export type AudioTranscriptionFields = Static<typeof AudioTranscriptionFields>;

/** The whole form, for the OpenAPI document. */
export const AudioTranscriptionForm = Type.Object({
  file: Type.Optional(MultipartFile('Audio, .wav or .mp3, at most 25 MB and 30 seconds. Either file or file_base64 is required; file wins.')),
  ...AudioTranscriptionFields.properties,
});

export const AudioTranscriptionResponse = Type.Object({
  id: Type.String({ description: 'Task id.' }),
  created: Type.Integer({ description: 'Unix timestamp, seconds.' }),
  request_id: Type.String(),
  model: Type.String(),
  text: Type.String({ description: 'The full transcript.' }),
});

/** One `data:` event of a transcription stream (docs/wire.md §3.4); the last has type transcript.text.done. */
export const AudioTranscriptionStreamEvent = Type.Object({
  id: Type.String(),
  created: Type.Integer(),
  model: Type.String(),
  type: StringEnum(['transcript.text.delta', 'transcript.text.done']),
  delta: Type.String({ description: 'New text; empty in the done event.' }),
  text: Type.Optional(Type.String({ description: 'The full transcript, in the done event.' })),
});
