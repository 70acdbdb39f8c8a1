import { FormData } from 'undici';
import type { TranscriptionRequest } from '../../core/media/transcriber.ts';

const contentTypes = { wav: 'audio/wav', mp3: 'audio/mpeg' } as const;

/** A multipart form with the audio file part and the upstream model name, as transcription servers take it. */
export function audioForm(request: TranscriptionRequest, upstreamModel: string): FormData {
  const form = new FormData();
  const { bytes, format } = request.audio;
  form.append('file', new Blob([bytes], { type: contentTypes[format] }), `audio.${format}`);
  form.append('model', upstreamModel);
  return form;
}
