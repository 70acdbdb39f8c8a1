import { BatchFlusher } from '../jobs/batch-flusher.ts';

const hourMs = 3_600_000;
const dayMs = 86_400_000;

/** What a call's status says: the platform or its engine failed (5xx), the caller was refused (4xx), or it was answered. */
export function requestOutcome(status: number): 'error' | 'refused' | 'answered' {
  if (status >= 500) return 'error';
  if (status >= 400) return 'refused';
  return 'answered';
}

/** One model's calls over a span of time. */
export interface ModelRequestCounts {
  readonly model: string;
  readonly requests: number;
  /** Answered 5xx, or left unfinished: the platform or its engine failed. */
  readonly errors: number;
  /** Answered 4xx: the caller's request or limits refused it. */
  readonly refused: number;
}

/** One model's calls in one UTC hour. */
export interface HourlyRequestCounts extends ModelRequestCounts {
  /** The hour's start, ms since the epoch. */
  readonly hourStart: number;
}

/** Where every node's hourly counts are kept (src/store/request-count-repository.ts). */
export interface RequestCountStore {
  /** Adds these counts to the stored ones in one atomic statement: several nodes add to the same hours. */
  add(counts: readonly HourlyRequestCounts[]): Promise<void>;
  /** Each model's sums over the hours that start at or after `fromMs`. */
  since(fromMs: number): Promise<ModelRequestCounts[]>;
  /** Removes the hours that start before `cutoffMs`; returns how many rows went. */
  dropBefore(cutoffMs: number): Promise<number>;
}

export interface RequestCountRecorderOptions {
  readonly flushIntervalMs?: number;
  /** Hours are kept this many days, in the store and in memory while the store fails. */
  readonly keptDays?: number;
  /** Counts per statement (each statement is atomic; a failed one is tried again, the written ones are not). */
  readonly maxBatch?: number;
  readonly onError?: (error: unknown) => void;
  readonly now?: () => number;
}

type Counts = { requests: number; errors: number; refused: number };

/**
 * This node's model calls, counted in memory by UTC hour and model and added to the store every
 * few seconds, off the request path, so the month of requests and errors covers every node of a
 * fleet. A failed write keeps its counts for the next try; memory stays bounded: the model is the
 * metrics' bounded label, and hours older than the kept span are let go.
 */
export class RequestCountRecorder {
  readonly #store: RequestCountStore;
  readonly #keptMs: number;
  readonly #maxBatch: number;
  readonly #onError: (error: unknown) => void;
  readonly #now: () => number;
  readonly #flusher: BatchFlusher;
  #pending = new Map<number, Map<string, Counts>>();
  /** The hour in which this node last removed the hours past the kept span. */
  #prunedHour = -1;

  constructor(store: RequestCountStore, options: RequestCountRecorderOptions = {}) {
    this.#store = store;
    this.#keptMs = (options.keptDays ?? 400) * dayMs;
    this.#maxBatch = options.maxBatch ?? 500;
    this.#onError = options.onError ?? (() => undefined);
    this.#now = options.now ?? Date.now;
    this.#flusher = new BatchFlusher(() => this.#drain(), options.flushIntervalMs ?? 10_000);
  }

  record(model: string, status: number, now = this.#now()): void {
    const outcome = requestOutcome(status);
    this.#add(Math.floor(now / hourMs) * hourMs, model, {
      requests: 1,
      errors: outcome === 'error' ? 1 : 0,
      refused: outcome === 'refused' ? 1 : 0,
    });
  }

  /**
   * Every node's calls by model over the last `days` UTC days, today included (as the usage
   * ledger's days): what the store holds, each node's last few seconds not yet among them.
   */
  lastDays(days: number, now = this.#now()): Promise<ModelRequestCounts[]> {
    return this.#store.since((Math.floor(now / dayMs) - days + 1) * dayMs);
  }

  /** Writes everything counted so far; concurrent calls share one write. */
  flush(): Promise<void> {
    return this.#flusher.flush();
  }

  close(): Promise<void> {
    return this.#flusher.close();
  }

  async #drain(): Promise<void> {
    const taken = this.#pending;
    this.#pending = new Map();
    // In key order, so nodes adding at once lock the same rows in the same order.
    const counts = [...taken]
      .flatMap(([hourStart, models]) => [...models].map(([model, sums]) => ({ hourStart, model, ...sums })))
      .sort((left, right) => left.hourStart - right.hourStart || (left.model < right.model ? -1 : left.model > right.model ? 1 : 0));
    const now = this.#now();
    for (let start = 0; start < counts.length; start += this.#maxBatch) {
      try {
        await this.#store.add(counts.slice(start, start + this.#maxBatch));
      } catch (error) {
        for (const unwritten of counts.slice(start)) if (unwritten.hourStart >= now - this.#keptMs) this.#add(unwritten.hourStart, unwritten.model, unwritten);
        this.#onError(error);
        return;
      }
    }
    const hour = Math.floor(now / hourMs);
    if (hour === this.#prunedHour) return;
    try {
      await this.#store.dropBefore(now - this.#keptMs);
      this.#prunedHour = hour;
    } catch (error) {
      this.#onError(error);
    }
  }

  #add(hourStart: number, model: string, counts: Counts): void {
    let models = this.#pending.get(hourStart);
    if (models === undefined) {
      models = new Map();
      this.#pending.set(hourStart, models);
    }
    const sums = models.get(model);
    if (sums === undefined) {
      models.set(model, { requests: counts.requests, errors: counts.errors, refused: counts.refused });
      return;
    }
    sums.requests += counts.requests;
    sums.errors += counts.errors;
    sums.refused += counts.refused;
  }
}
