/** One video request, the platform's rules already checked and defaults applied. */
export interface VideoRequest {
  readonly model: string;
  readonly prompt: string | undefined;
  /** First frame and optional last frame, as checked bytes (PNG or JPEG, <= 5 MB). */
  readonly images: readonly { readonly bytes: Uint8Array; readonly contentType: 'image/png' | 'image/jpeg' }[];
  readonly quality: 'speed' | 'quality';
  readonly withAudio: boolean;
  /** `WIDTHxHEIGHT`, or undefined for the engine's choice (short side 1080, input image ratio). */
  readonly size: string | undefined;
  readonly fps: 30 | 60;
  readonly durationSeconds: 5 | 10;
  readonly signal: AbortSignal;
}

export interface GeneratedVideo {
  readonly bytes: Uint8Array;
  readonly contentType: string;
  /** The engine's cover image, when it gives one (else the platform extracts the first frame). */
  readonly cover?: { readonly bytes: Uint8Array; readonly contentType: string };
}

export interface VideoGenerator {
  generate(request: VideoRequest): Promise<GeneratedVideo>;
}
