import type { MessagePort } from 'node:worker_threads';
import type { RasterImage, TextLine } from '../layout/page-content.ts';
import type { PageReadingSettings } from './page-reading.ts';

/** What every worker is started with (its pool's workerData). */
export interface OcrWorkerSettings {
  /** onnxruntime threads of each of the worker's models. */
  readonly threads: number;
}

/**
 * From the pool to a worker: read a page, or load the models now. A read carries the port on
 * which the pool says that the caller gave it up (any message), so the worker keeps its models
 * and only stops that page.
 */
export type OcrWorkerTask =
  { readonly kind: 'read'; readonly raster: RasterImage; readonly settings: PageReadingSettings; readonly abort: MessagePort } | { readonly kind: 'load' };

/** From a worker to the pool: the lines of a read (none for a load), or why it failed. */
export type OcrWorkerReply = { readonly lines: TextLine[] } | { readonly error: { readonly name: string; readonly message: string } };
