import { invalidField } from '../../core/errors/api-error.ts';
import type { ProbedAudio } from '../../tools/media/audio-probe.ts';
import { probeAudio } from '../../tools/media/audio-probe.ts';
import type { ReceivedFile } from '../../http/multipart.ts';
import { parseInlineData } from '../../core/media/inline-data.ts';
import type { AudioTranscriptionFields } from './audio.schema.ts';

/** The platform's limit on the length of one transcription. */
const maxAudioSeconds = 30;

export interface AudioInput extends ProbedAudio {
  readonly bytes: Uint8Array;
}

/**
 * The audio to transcribe, from the file part (it wins) or file_base64, with its format and
 * duration read from the bytes: a file named .wav that is not audio is refused here, not by the
 * engine. Runs after `checkAudioTranscription`, so one source is present and well-formed. The
 * bytes are read now; what is wrong with them is thrown by the returned function when the route
 * first needs the audio, so that a model the key may not use is still refused first.
 */
export async function readAudioInput(fields: AudioTranscriptionFields, file: ReceivedFile<Buffer> | undefined): Promise<() => AudioInput> {
  const field = file === undefined ? 'file_base64' : 'file';
  const bytes = file?.content ?? Buffer.from(parseInlineData(fields.file_base64 ?? '')?.base64 ?? '', 'base64');
  const probed = await probeAudio(bytes);
  return () => {
    if (probed === undefined) throw invalidField(field, 'is not readable WAV or MP3 audio (corrupt, or another format)');
    if (probed.durationSeconds > maxAudioSeconds) {
      throw invalidField(field, `must be at most ${maxAudioSeconds} s of audio, got ${probed.durationSeconds.toFixed(1)} s`);
    }
    return { ...probed, bytes };
  };
}
