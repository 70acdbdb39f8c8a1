import { MessageChannel, type TransferListItem } from 'node:worker_threads';
import { Tinypool } from 'tinypool';
import { typescriptWorkerEntry } from '../../core/threads/typescript-worker-entry.ts';
import type { RasterImage, TextLine } from '../layout/page-content.ts';
import type { OcrWorkerReply, OcrWorkerSettings, OcrWorkerTask } from './ocr-worker-messages.ts';
import type { PageReadingSettings } from './page-reading.ts';

export interface OcrWorkerPoolOptions {
  /** Worker threads, each reading one page at a time. */
  readonly size: number;
  /** onnxruntime threads of each worker's models. */
  readonly threads: number;
}

/** The worker runs ocr-worker.ts, TypeScript like the rest of the server. */
const workerEntry = typescriptWorkerEntry(new URL('./ocr-worker.ts', import.meta.url));

/**
 * Worker threads (a tinypool pool) that read pages with PaddleOCR, so that inference (0.3-1 s at a
 * time) never holds up the server's event loop, and pages of one document are read side by side
 * in order of arrival. The workers start on the first page (each loads its own onnxruntime
 * sessions) and stay for the life of the process; one that dies fails its page and is replaced.
 * Idle workers do not keep the process alive.
 *
 * A page given up by its caller is rejected at once, but its worker is not ended (it would lose
 * its loaded models): the worker is told through the page's own port and stops at its next check,
 * or at once when the page was still waiting. tinypool therefore never sees the caller's signal.
 */
export class OcrWorkerPool {
  readonly size: number;
  readonly #threads: number;
  #pool: Tinypool | undefined;

  constructor(options: OcrWorkerPoolOptions) {
    this.size = options.size;
    this.#threads = options.threads;
  }

  /** The lines of the raster (see readPage); pages wait in order for a free worker. */
  read(raster: RasterImage, settings: PageReadingSettings, signal?: AbortSignal): Promise<TextLine[]> {
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    // A copy goes to the worker, moved rather than cloned a second time: the caller keeps its raster.
    const data = raster.data.slice();
    const { port1: abort, port2: abortHeard } = new MessageChannel();
    const task: OcrWorkerTask = { kind: 'read', raster: { width: raster.width, height: raster.height, data }, settings, abort: abortHeard };
    const reading = this.#run(task, [data.buffer, abortHeard]).finally(() => abort.close());
    if (signal === undefined) return reading;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        abort.postMessage('abort');
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      reading.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /** Starts every worker and loads its models. */
  async warmUp(): Promise<void> {
    await Promise.all(Array.from({ length: this.size }, () => this.#run({ kind: 'load' }, [])));
  }

  async #run(task: OcrWorkerTask, transferList: TransferListItem[]): Promise<TextLine[]> {
    let reply: OcrWorkerReply;
    try {
      reply = (await this.#started().run(task, { transferList })) as OcrWorkerReply;
    } catch (cause) {
      throw new Error(`the OCR worker thread failed: ${(cause as Error).message}`, { cause });
    }
    if ('lines' in reply) return reply.lines;
    const error = new Error(reply.error.message);
    error.name = reply.error.name;
    throw error;
  }

  /** The pool, started on first use: its workers all stay (a worker that went idle would lose its models). */
  #started(): Tinypool {
    if (this.#pool === undefined) {
      const settings: OcrWorkerSettings = { threads: this.#threads };
      this.#pool = new Tinypool({ filename: workerEntry.href, minThreads: this.size, maxThreads: this.size, workerData: settings });
      // A worker lost while no page was on it fails nothing: it is replaced, and a page on a failing one says why.
      this.#pool.on('error', () => undefined);
    }
    return this.#pool;
  }
}
