import { Worker } from 'node:worker_threads';
import { typescriptWorkerEntry } from '../../core/threads/typescript-worker-entry.ts';
import type { UsageRecord } from '../../core/usage/usage-record.ts';
import { packLedgerRecords } from './ledger-row.ts';
import type { LedgerBatch, LedgerBatchWritten, LedgerClose } from './sqlite-ledger-worker.ts';

const workerEntry = typescriptWorkerEntry(new URL('./sqlite-ledger-worker.ts', import.meta.url));

interface PendingBatch {
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/**
 * Writes ledger batches on SQLite from a thread of its own, with a connection of its own to the
 * same file, so SQLite's work for every row (it updates four B-trees) stays off the thread that
 * answers requests. A batch is written whole or not at all (its transaction); a failed batch, or
 * one lost with the thread, rejects, and the UsageRecorder keeps its records for the next try.
 * The thread starts with the first batch and keeps the process alive only while a batch is on
 * its way.
 */
export class SqliteLedgerThread {
  readonly #path: string;
  readonly #pending = new Map<number, PendingBatch>();
  #worker: Worker | undefined;
  #nextId = 0;
  /** Told when the last batch on its way is answered (close waits for it). */
  #drained: (() => void) | undefined;

  constructor(path: string) {
    this.#path = path;
  }

  /** The records are made rows (ids, days) in the thread: the request path's thread only packs their ledger fields. */
  write(records: readonly UsageRecord[]): Promise<void> {
    const worker = (this.#worker ??= this.#start());
    const id = (this.#nextId += 1);
    return new Promise<void>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.ref();
      const packed = packLedgerRecords(records);
      // The numbers' buffer moves to the thread rather than being copied.
      worker.postMessage({ id, records: packed } satisfies LedgerBatch, [packed.numbers.buffer]);
    });
  }

  /** Ends the thread once the batches sent so far are written; a later write starts another. */
  async close(): Promise<void> {
    const worker = this.#worker;
    if (worker === undefined) return;
    if (this.#pending.size > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    // The thread closes its connection (a clean end of its WAL use) and ends by itself.
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.ref();
    worker.postMessage({ close: true } satisfies LedgerClose);
    await exited;
  }

  #start(): Worker {
    const worker = new Worker(workerEntry, { workerData: { path: this.#path } });
    worker.unref();
    worker.on('message', (answer: LedgerBatchWritten) => this.#answered(worker, answer));
    worker.on('error', (error: unknown) => this.#lost(worker, new Error(`the usage ledger's writer thread failed: ${messageOf(error)}`)));
    worker.on('exit', (code) => this.#lost(worker, new Error(`the usage ledger's writer thread exited (code ${code})`)));
    return worker;
  }

  #answered(worker: Worker, { id, error }: LedgerBatchWritten): void {
    const batch = this.#pending.get(id);
    this.#pending.delete(id);
    if (error === undefined) batch?.resolve();
    else batch?.reject(new Error(`the usage ledger batch was not written: ${error}`));
    if (this.#pending.size === 0) {
      worker.unref();
      this.#drain();
    }
  }

  /** The thread is gone: its batches fail (their records are kept by the recorder), the next write starts another. */
  #lost(worker: Worker, error: Error): void {
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    const batches = [...this.#pending.values()];
    this.#pending.clear();
    for (const batch of batches) batch.reject(error);
    this.#drain();
  }

  #drain(): void {
    const drained = this.#drained;
    this.#drained = undefined;
    drained?.();
  }
}

/** A worker's error arrives as an Error, or as a plain object when its class did not survive the copy. */
function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}
