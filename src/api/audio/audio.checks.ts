import { extname } from 'node:path';
import { ApiError, invalidField } from '../../core/errors/api-error.ts';
import { quoteClientValue } from '../../core/errors/quote-client-value.ts';
import type { ReceivedFile } from '../../http/multipart.ts';
import { parseInlineData } from '../../core/media/inline-data.ts';
import { audioExtensions, maxAudioBytes, type AudioTranscriptionFields } from './audio.schema.ts';

/** Content types that stand for wav or mp3 when the file name has no extension. */
const audioMimeTypes = ['audio/wav', 'audio/x-wav', 'audio/wave', 'audio/vnd.wave', 'audio/mpeg', 'audio/mp3', 'audio/mpeg3'];

/**
 * The transcription rules JSON Schema cannot state: one audio source (file wins over file_base64,
 * docs/wire.md §1.4), its type by name, and the decoded size of file_base64. The audio format and
 * the 30-second duration are read from the bytes by the engine layer.
 */
export function checkAudioTranscription(fields: AudioTranscriptionFields, file: ReceivedFile<unknown> | undefined): void {
  if (file !== undefined) {
    checkAudioFile(file);
    return;
  }
  if (fields.file_base64 === undefined) {
    throw new ApiError('1213', "Missing required parameter: 'file' (a .wav or .mp3 file part), or 'file_base64'.");
  }
  checkBase64Audio(fields.file_base64);
}

function checkAudioFile(file: ReceivedFile<unknown>): void {
  const extension = extname(file.filename).toLowerCase();
  const named = (audioExtensions as readonly string[]).includes(extension);
  const typed = extension === '' && audioMimeTypes.includes(file.mimetype.toLowerCase());
  if (!named && !typed) {
    throw invalidField('file', `must be a ${audioExtensions.join(' or ')} file, not '${quoteClientValue(file.filename)}' (${quoteClientValue(file.mimetype)})`);
  }
  if (file.bytes === 0) throw invalidField('file', 'is empty');
}

/** Base64 or a base64 data URL, whitespace allowed, decoding to 1 byte .. 25 MB. */
function checkBase64Audio(value: string): void {
  const inline = parseInlineData(value);
  if (inline === undefined) throw invalidField('file_base64', 'must be base64-encoded audio');
  if (inline.decodedBytes === 0) throw invalidField('file_base64', 'holds no audio');
  if (inline.decodedBytes > maxAudioBytes) {
    throw invalidField('file_base64', `must decode to at most 25 MB (${maxAudioBytes} bytes), got ${inline.decodedBytes} bytes`);
  }
}

/** Text length of the largest allowed file_base64, with room for a data URL prefix and line breaks. */
export function maxBase64FieldBytes(): number {
  const encoded = Math.ceil(maxAudioBytes / 3) * 4;
  return encoded + Math.ceil(encoded / 76) * 2 + 256;
}
