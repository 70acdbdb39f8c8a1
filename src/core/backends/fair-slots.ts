import { abortReason } from '../errors/abort-reason.ts';

/** One waiter of a holder's queue: admitted by `admit`, or gone when its signal aborted. */
interface Waiter {
  readonly admit: () => void;
}

/**
 * At most `limit` holders at once for the whole server, shared fairly between callers: each
 * caller's waiters queue apart, and a freed slot goes to the callers in turn (the one waiting
 * longest since its last turn first), so one caller with many waiters cannot keep every slot
 * while another caller's single one waits behind them all.
 */
export class FairSlots {
  readonly limit: number;
  #held = 0;
  /** Callers with waiters, in turn order (a Map keeps insertion order; a served caller goes to the back). */
  readonly #queues = new Map<string, Waiter[]>();

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Slots taken now. */
  get held(): number {
    return this.#held;
  }

  /** A slot for `caller`, waiting its turn; rejects with the signal's reason when it aborts first. */
  async acquire(caller: string, signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted();
    if (this.#held < this.limit && this.#queues.size === 0) {
      this.#held += 1;
      return this.#releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        admit: () => {
          signal.removeEventListener('abort', leave);
          resolve();
        },
      };
      const leave = () => {
        this.#remove(caller, waiter);
        reject(abortReason(signal));
      };
      const queue = this.#queues.get(caller);
      if (queue === undefined) this.#queues.set(caller, [waiter]);
      else queue.push(waiter);
      signal.addEventListener('abort', leave, { once: true });
    });
    return this.#releaser();
  }

  /** As `acquire`, waiting at most `waitMs`: then rejects with `busy()` (the server is too busy for this now). */
  async acquireWithin(caller: string, signal: AbortSignal, waitMs: number, busy: () => Error): Promise<() => void> {
    const waited = new AbortController();
    const timer = setTimeout(() => waited.abort(busy()), waitMs);
    try {
      return await this.acquire(caller, AbortSignal.any([signal, waited.signal]));
    } finally {
      clearTimeout(timer);
    }
  }

  #remove(caller: string, waiter: Waiter): void {
    const queue = this.#queues.get(caller);
    if (queue === undefined) return;
    const index = queue.indexOf(waiter);
    if (index >= 0) queue.splice(index, 1);
    if (queue.length === 0) this.#queues.delete(caller);
  }

  /** The first waiter of the caller whose turn it is; that caller goes to the back of the turn order. */
  #next(): Waiter | undefined {
    for (const [caller, queue] of this.#queues) {
      const waiter = queue.shift();
      this.#queues.delete(caller);
      if (queue.length > 0) this.#queues.set(caller, queue);
      if (waiter !== undefined) return waiter;
    }
    return undefined;
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#next();
      // The slot passes straight to the next waiter; otherwise it is freed.
      if (next === undefined) this.#held -= 1;
      else next.admit();
    };
  }
}
