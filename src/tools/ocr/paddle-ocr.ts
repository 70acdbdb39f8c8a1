import { availableParallelism } from 'node:os';
import type { RasterImage, TextLine } from '../layout/page-content.ts';
import { OcrWorkerPool } from './ocr-worker-pool.ts';
import type { PageReadingSettings } from './page-reading.ts';

export interface PaddleOcrOptions {
  /**
   * Worker threads reading pages side by side; default min(2, cores). Pages of one document are
   * read in parallel up to this many, and inference never runs on the event loop.
   */
  readonly workers?: number;
  /**
   * Threads each worker's models use (onnxruntime intraOpNumThreads); default half the cores
   * shared among the workers (1 to 4 each). On a loaded 2-core machine one thread per model read
   * more pages per minute than two (spinning threads compete with everything else).
   */
  readonly threads?: number;
  /** Longer side of the image the detector sees; default 1280 (keeps 8-pt text of a 150-dpi A4 page). */
  readonly detectionSideLimit?: number;
  /**
   * Run the 0°/180° line classifier and turn the lines it finds upside down; default false, as in
   * PaddleOCR. Worth it for scans that may lie upside down; it costs about a tenth of a page's time.
   */
  readonly classifyDirection?: boolean;
  /**
   * Lines recognised per inference; default 1, each line at its own width: a batch pads its lines
   * to the widest, and on bench:ocr's pages that padding cost more CPU than batching saved.
   */
  readonly recognitionBatchSize?: number;
  /** Lines whose mean character probability is below this are dropped; default 0.5 (PaddleOCR's). */
  readonly minimumConfidence?: number;
}

export interface RecognizeOptions {
  readonly signal?: AbortSignal | undefined;
}

/** Pools are shared by every PaddleOcr in the process with the same workers and threads. */
const pools = new Map<string, OcrWorkerPool>();

function poolFor(size: number, threads: number): OcrWorkerPool {
  const key = `${size}×${threads}`;
  let pool = pools.get(key);
  if (pool === undefined) {
    pool = new OcrWorkerPool({ size, threads });
    pools.set(key, pool);
  }
  return pool;
}

/**
 * PaddleOCR (PP-OCRv4 detection and recognition, optional direction classification) on
 * onnxruntime, in worker threads of this process. The workers start and load their models on the
 * first recognition and are kept for the life of the process.
 */
export class PaddleOcr {
  /** Pages read at once. */
  readonly parallelism: number;
  readonly #pool: OcrWorkerPool;
  readonly #settings: PageReadingSettings;

  constructor(options: PaddleOcrOptions = {}) {
    const cores = availableParallelism();
    this.parallelism = Math.max(1, options.workers ?? Math.min(2, cores));
    const threads = options.threads ?? Math.max(1, Math.min(4, Math.floor(cores / 2 / this.parallelism)));
    this.#pool = poolFor(this.parallelism, threads);
    this.#settings = {
      detectionSideLimit: options.detectionSideLimit ?? 1280,
      classifyDirection: options.classifyDirection ?? false,
      recognitionBatchSize: options.recognitionBatchSize ?? 1,
      minimumConfidence: options.minimumConfidence ?? 0.5,
    };
  }

  /** Starts the workers and loads their models now rather than on the first recognition. */
  warmUp(): Promise<void> {
    return this.#pool.warmUp();
  }

  /**
   * Text lines of the raster, boxes in its pixels, in reading order (top to bottom, then left to
   * right), confidence the mean probability of the line's characters. Rejects with the signal's
   * reason as soon as it is aborted (the worker stops at its next check).
   */
  recognize(raster: RasterImage, options: RecognizeOptions = {}): Promise<TextLine[]> {
    return this.#pool.read(raster, this.#settings, options.signal);
  }
}

let shared: PaddleOcr | undefined;

/** The process's recogniser with default options (its workers start on first use). */
export function sharedPaddleOcr(): PaddleOcr {
  shared ??= new PaddleOcr();
  return shared;
}

/** The shared instance, or one that also classifies line direction (its workers are shared too). */
export function paddleOcrFor(options: { readonly classifyDirection?: boolean | undefined }): PaddleOcr {
  return options.classifyDirection === true ? new PaddleOcr({ classifyDirection: true }) : sharedPaddleOcr();
}
