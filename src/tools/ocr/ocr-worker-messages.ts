import type { RasterImage, TextLine } from '../layout/page-content.ts';
import type { PageReadingSettings } from './page-reading.ts';

/** What a worker is started with (its workerData). */
export interface OcrWorkerSettings {
  /** onnxruntime threads of each of the worker's models. */
  readonly threads: number;
}

/** From the pool to a worker: read a page, load the models now, or give up a read. */
export type OcrWorkerRequest =
  | { readonly kind: 'read'; readonly id: number; readonly raster: RasterImage; readonly settings: PageReadingSettings }
  | { readonly kind: 'load'; readonly id: number }
  | { readonly kind: 'abort'; readonly id: number };

/** From a worker to the pool: the lines of a read (none for a load), or why it failed. */
export type OcrWorkerReply =
  { readonly id: number; readonly lines: TextLine[] } | { readonly id: number; readonly error: { readonly name: string; readonly message: string } };
