import { BatchFlusher } from '../jobs/batch-flusher.ts';
import type { UsageRecord } from './usage-record.ts';

export interface UsageRecorderOptions {
  readonly flushIntervalMs?: number;
  readonly maxBatch?: number;
  /** Records kept while the store is failing; beyond it the oldest are dropped (and reported). */
  readonly maxPending?: number;
  readonly onError?: (error: unknown, dropped: number) => void;
  /** Sees every record as it is recorded, before any write (the token metrics). */
  readonly observe?: (record: UsageRecord) => void;
}

/**
 * Collects usage records and writes them in batches, off the request path: `record` only pushes
 * to memory; a timer (or a full batch) flushes. A failed write keeps the records for the next try.
 */
export class UsageRecorder {
  readonly #write: (records: readonly UsageRecord[]) => Promise<void>;
  readonly #maxBatch: number;
  readonly #maxPending: number;
  readonly #onError: (error: unknown, dropped: number) => void;
  readonly #observe: ((record: UsageRecord) => void) | undefined;
  readonly #flusher: BatchFlusher;
  #pending: UsageRecord[] = [];

  constructor(write: (records: readonly UsageRecord[]) => Promise<void>, options: UsageRecorderOptions = {}) {
    this.#write = write;
    this.#maxBatch = options.maxBatch ?? 500;
    this.#maxPending = options.maxPending ?? 100_000;
    this.#onError = options.onError ?? (() => undefined);
    this.#observe = options.observe;
    this.#flusher = new BatchFlusher(() => this.#drain(), options.flushIntervalMs ?? 1000);
  }

  record(record: UsageRecord): void {
    this.#observe?.(record);
    this.#pending.push(record);
    if (this.#pending.length >= this.#maxBatch) void this.flush();
  }

  /** Writes everything recorded so far; concurrent calls share one write. */
  flush(): Promise<void> {
    return this.#flusher.flush();
  }

  close(): Promise<void> {
    return this.#flusher.close();
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending.splice(0, this.#maxBatch);
      try {
        await this.#write(batch);
      } catch (error) {
        this.#pending.unshift(...batch);
        const dropped = Math.max(0, this.#pending.length - this.#maxPending);
        this.#pending.splice(0, dropped);
        this.#onError(error, dropped);
        return;
      }
    }
  }
}
