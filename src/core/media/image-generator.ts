import type { ContentFilterVerdict } from '../errors/content-filter.ts';

/** One image request, the platform's rules already checked and defaults applied. */
export interface ImageRequest {
  readonly model: string;
  readonly prompt: string;
  readonly width: number;
  readonly height: number;
  readonly quality: 'hd' | 'standard';
  /**
   * True when the platform runs this request as an asynchronous task (POST
   * /async/images/generations): an engine with a task API of its own (the upstream platform)
   * may use it instead of holding one long call open.
   */
  readonly asyncTask: boolean;
  readonly signal: AbortSignal;
}

/** A generated image: its bytes, stored by the platform. */
export interface GeneratedImage {
  readonly bytes: Uint8Array;
  readonly contentType: string;
}

export type { ContentFilterVerdict };

export interface GeneratedImages {
  readonly images: readonly GeneratedImage[];
  /** The engine's own content-safety verdicts, when it has a classifier (the upstream platform does). */
  readonly contentFilter: readonly ContentFilterVerdict[] | undefined;
}

export interface ImageGenerator {
  generate(request: ImageRequest): Promise<GeneratedImages>;
}
