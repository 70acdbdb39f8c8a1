/** Audio formats the platform accepts, as read from the bytes (not the file name). */
export type AudioFormat = 'wav' | 'mp3';

/** One transcription request, the audio already checked (format and at most 30 seconds). */
export interface TranscriptionRequest {
  readonly model: string;
  readonly audio: { readonly bytes: Uint8Array; readonly format: AudioFormat };
  /** Earlier transcript, as context. */
  readonly prompt?: string;
  /** Domain words the engine should favour; empty when none were sent. */
  readonly hotwords: readonly string[];
  readonly signal: AbortSignal;
}

export interface Transcription {
  readonly text: string;
}

/**
 * Speech to text. `stream` is optional: an engine that cannot stream is streamed by the platform
 * as one delta holding the whole text.
 */
export interface Transcriber {
  transcribe(request: TranscriptionRequest): Promise<Transcription>;
  /** Yields text deltas; their concatenation is the transcript. */
  stream?(request: TranscriptionRequest): AsyncIterable<string>;
}
