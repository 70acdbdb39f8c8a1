import { requestOutcome } from './request-counts.ts';

const minuteMs = 60_000;
/** A day of minutes: the longest window asked for. */
const keptMinutes = 24 * 60;

/** One model's calls in a window. */
export interface RecentModelStats {
  readonly model: string;
  readonly requests: number;
  /** Answered 5xx, or left unfinished by the engine: the platform or its engine failed. */
  readonly errors: number;
  /** Answered 4xx: the caller's request or limits refused it. */
  readonly refused: number;
  readonly totalSeconds: number;
  readonly maxSeconds: number;
}

interface Sums {
  requests: number;
  errors: number;
  refused: number;
  totalSeconds: number;
  maxSeconds: number;
}

/**
 * This process's model calls over the last day, by minute and model (the metrics' bounded model
 * label), so operators see the last hour's and day's requests, failures and times without a
 * metrics server. Memory is bounded: at most a day of minutes, each with the configured models.
 */
export class RecentRequests {
  readonly #minutes = new Map<number, Map<string, Sums>>();
  #currentMinute = -1;
  #current = new Map<string, Sums>();

  record(model: string, status: number, seconds: number, now = Date.now()): void {
    const minute = Math.floor(now / minuteMs);
    if (minute !== this.#currentMinute) this.#startMinute(minute);
    let sums = this.#current.get(model);
    if (sums === undefined) {
      sums = { requests: 0, errors: 0, refused: 0, totalSeconds: 0, maxSeconds: 0 };
      this.#current.set(model, sums);
    }
    sums.requests += 1;
    const outcome = requestOutcome(status);
    if (outcome === 'error') sums.errors += 1;
    else if (outcome === 'refused') sums.refused += 1;
    sums.totalSeconds += seconds;
    sums.maxSeconds = Math.max(sums.maxSeconds, seconds);
  }

  /** Each model's sums over the last `minutes` minutes, the current one included. */
  window(minutes: number, now = Date.now()): RecentModelStats[] {
    const since = Math.floor(now / minuteMs) - minutes + 1;
    const totals = new Map<string, Sums>();
    for (const [minute, models] of this.#minutes) {
      if (minute < since) continue;
      for (const [model, sums] of models) {
        const total = totals.get(model) ?? { requests: 0, errors: 0, refused: 0, totalSeconds: 0, maxSeconds: 0 };
        total.requests += sums.requests;
        total.errors += sums.errors;
        total.refused += sums.refused;
        total.totalSeconds += sums.totalSeconds;
        total.maxSeconds = Math.max(total.maxSeconds, sums.maxSeconds);
        totals.set(model, total);
      }
    }
    return [...totals].map(([model, sums]) => ({ model, ...sums }));
  }

  #startMinute(minute: number): void {
    this.#currentMinute = minute;
    this.#current = this.#minutes.get(minute) ?? new Map();
    this.#minutes.set(minute, this.#current);
    for (const kept of this.#minutes.keys()) if (kept <= minute - keptMinutes) this.#minutes.delete(kept);
  }
}
