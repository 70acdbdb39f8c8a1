/** The size and timing of an image or a video, read from its headers. */
export interface VisualMedia {
  readonly width: number;
  readonly height: number;
  /** Seconds; 0 when the file states none (a still image). */
  readonly durationSeconds: number;
  /** Frames a second; 0 when the file states none. */
  readonly framesPerSecond: number;
  readonly frameCount: number | undefined;
}

/** Every reader stayed taken for as long as a read may wait for one: the server is too busy reading media now. */
export class MediaReaderBusyError extends Error {}

/** The reading tool is not installed: the server's installation is incomplete, whatever the media. */
export class MediaReaderMissingError extends Error {}

/**
 * Reads the pictures and videos of a prompt for counting their tokens. The platform's reads PNG
 * and JPEG sizes from their headers in process and runs ffprobe for the rest (src/tools/media);
 * it is passed in from the composition root so that core runs no processes of its own.
 */
export interface VisualMediaReader {
  /** Width and height from the header of a format read without a probe, else undefined. */
  imageSize(bytes: Uint8Array): { readonly width: number; readonly height: number } | undefined;
  /**
   * The size and timing of an image or a video; `caller` (the API key) takes its turn among the
   * callers waiting. Rejects with MediaReaderBusyError or MediaReaderMissingError, or with another
   * error when the bytes are no picture it can read.
   */
  probe(bytes: Uint8Array, caller: string, signal: AbortSignal): Promise<VisualMedia>;
}
