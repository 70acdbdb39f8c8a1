import { parseBuffer } from 'music-metadata';
import type { AudioFormat } from '../../core/media/transcriber.ts';

export interface ProbedAudio {
  readonly format: AudioFormat;
  readonly durationSeconds: number;
}

/** music-metadata's container names of the formats the engines take. MPEG audio of every layer counts as mp3, as the engines' decoders take it. */
const formatsByContainer = new Map<string, AudioFormat>([
  ['WAVE', 'wav'],
  ['MPEG', 'mp3'],
]);

/**
 * Reads an audio file's format and duration from its bytes with music-metadata, without decoding
 * the samples: WAV from its RIFF chunks, MP3 from its Xing/Info tag or, without one, by walking
 * its frame headers. Undefined when the bytes are neither (or are too damaged to tell a
 * duration), so the caller can refuse them before an engine is called. The bytes are already
 * capped by the caller; cover pictures in tags are skipped, not read.
 */
export async function probeAudio(bytes: Uint8Array): Promise<ProbedAudio | undefined> {
  let parsed: Awaited<ReturnType<typeof parseBuffer>>;
  try {
    parsed = await parseBuffer(bytes, undefined, { duration: true, skipCovers: true });
  } catch {
    // Bytes of no audio format music-metadata knows, or too damaged to parse.
    return undefined;
  }
  const { container, duration } = parsed.format;
  const format = container === undefined ? undefined : formatsByContainer.get(container);
  if (format === undefined || duration === undefined || !(duration > 0)) return undefined;
  return { format, durationSeconds: duration };
}
