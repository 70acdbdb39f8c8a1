import { Worker } from 'node:worker_threads';
import { typescriptWorkerEntry } from '../../core/threads/typescript-worker-entry.ts';
import type { RasterImage, TextLine } from '../layout/page-content.ts';
import type { OcrWorkerReply, OcrWorkerRequest, OcrWorkerSettings } from './ocr-worker-messages.ts';
import type { PageReadingSettings } from './page-reading.ts';

export interface OcrWorkerPoolOptions {
  /** Worker threads, each reading one page at a time. */
  readonly size: number;
  /** onnxruntime threads of each worker's models. */
  readonly threads: number;
}

interface Job {
  readonly request: Extract<OcrWorkerRequest, { kind: 'read' | 'load' }>;
  readonly transfer: ArrayBuffer[];
  readonly signal: AbortSignal | undefined;
  readonly resolve: (lines: TextLine[]) => void;
  readonly reject: (reason: unknown) => void;
  readonly onAbort: () => void;
  /** The caller has its answer (or was told of the abort); a later reply is dropped. */
  settled: boolean;
}

interface PoolWorker {
  readonly thread: Worker;
  /** The job it works on; a worker is busy until it replies, even to a read given up. */
  job: Job | undefined;
}

/** The worker runs ocr-worker.ts, TypeScript like the rest of the server. */
const workerEntry = typescriptWorkerEntry(new URL('./ocr-worker.ts', import.meta.url));

/**
 * Worker threads that read pages with PaddleOCR, so that inference (0.3-1 s at a time) never holds
 * up the server's event loop, and pages of one document are read side by side. Workers start on
 * the first page (each loads its own onnxruntime sessions) and stay for the life of the process;
 * one that dies fails its page and is replaced on the next. Idle workers do not keep the process
 * alive.
 */
export class OcrWorkerPool {
  readonly size: number;
  readonly #threads: number;
  readonly #workers = new Set<PoolWorker>();
  readonly #queue: Job[] = [];
  #nextId = 1;

  constructor(options: OcrWorkerPoolOptions) {
    this.size = options.size;
    this.#threads = options.threads;
  }

  /** The lines of the raster (see readPage); pages wait in order for a free worker. */
  read(raster: RasterImage, settings: PageReadingSettings, signal?: AbortSignal): Promise<TextLine[]> {
    // A copy goes to the worker, moved rather than cloned a second time: the caller keeps its raster.
    const data = raster.data.slice();
    const request = { kind: 'read', id: this.#nextId++, raster: { width: raster.width, height: raster.height, data }, settings } as const;
    return this.#submit(request, [data.buffer], signal);
  }

  /** Starts every worker and loads its models. */
  async warmUp(): Promise<void> {
    await Promise.all(Array.from({ length: this.size }, () => this.#submit({ kind: 'load', id: this.#nextId++ }, [], undefined)));
  }

  #submit(request: Job['request'], transfer: ArrayBuffer[], signal: AbortSignal | undefined): Promise<TextLine[]> {
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const job: Job = { request, transfer, signal, resolve, reject, onAbort: () => this.#abort(job), settled: false };
      signal?.addEventListener('abort', job.onAbort, { once: true });
      this.#queue.push(job);
      this.#dispatch();
    });
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      const worker = [...this.#workers].find((candidate) => candidate.job === undefined) ?? this.#spawn();
      if (worker === undefined) return;
      const job = this.#queue.shift() as Job;
      worker.job = job;
      worker.thread.ref();
      worker.thread.postMessage(job.request, job.transfer);
    }
  }

  /** A new worker, or undefined when the pool is full. */
  #spawn(): PoolWorker | undefined {
    if (this.#workers.size >= this.size) return undefined;
    const settings: OcrWorkerSettings = { threads: this.#threads };
    const worker: PoolWorker = { thread: new Worker(workerEntry, { workerData: settings }), job: undefined };
    worker.thread.unref();
    worker.thread.on('message', (reply: OcrWorkerReply) => this.#finish(worker, reply));
    worker.thread.on('error', (error) => this.#lose(worker, error));
    worker.thread.on('exit', (code) => this.#lose(worker, new Error(`it exited with code ${code}`)));
    this.#workers.add(worker);
    return worker;
  }

  #finish(worker: PoolWorker, reply: OcrWorkerReply): void {
    const job = worker.job;
    if (job === undefined || job.request.id !== reply.id) return;
    worker.job = undefined;
    worker.thread.unref();
    if ('error' in reply) {
      const error = new Error(reply.error.message);
      error.name = reply.error.name;
      this.#settle(job, () => job.reject(error));
    } else {
      this.#settle(job, () => job.resolve(reply.lines));
    }
    this.#dispatch();
  }

  #lose(worker: PoolWorker, cause: Error): void {
    // 'error' is followed by 'exit': the worker is dropped once.
    if (!this.#workers.delete(worker)) return;
    const job = worker.job;
    if (job !== undefined) this.#settle(job, () => job.reject(new Error(`the OCR worker thread failed: ${cause.message}`, { cause })));
    void worker.thread.terminate();
    this.#dispatch();
  }

  /** The caller stops waiting at once; a worker on the page stops at its next check. */
  #abort(job: Job): void {
    const reason: unknown = job.signal?.reason;
    this.#settle(job, () => job.reject(reason));
    const queued = this.#queue.indexOf(job);
    if (queued >= 0) {
      this.#queue.splice(queued, 1);
      return;
    }
    const worker = [...this.#workers].find((candidate) => candidate.job === job);
    worker?.thread.postMessage({ kind: 'abort', id: job.request.id } satisfies OcrWorkerRequest);
  }

  #settle(job: Job, answer: () => void): void {
    if (job.settled) return;
    job.settled = true;
    job.signal?.removeEventListener('abort', job.onAbort);
    answer();
  }
}
