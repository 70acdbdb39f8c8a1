import { abortReason } from '../errors/abort-reason.ts';

/** How one keyed acquisition waits: how many holders of its key at once, how long at most. */
export interface SlotOptions {
  /** At most this many holders of `key` at once, within the shared limit (unbounded when absent). */
  readonly keyLimit?: number;
  /** Wait at most this long, then reject with `busy()` (the server is too busy for this now). */
  readonly wait?: { readonly ms: number; readonly busy: () => Error };
}

/** One waiter of a key's queue: admitted by `admit`, or gone when its signal aborted. */
interface Waiter {
  readonly keyLimit: number;
  readonly admit: () => void;
}

const soleKey = '';

/**
 * At most `limit` holders at once, shared fairly between keys, and at most a key's own limit of
 * them for that key. Each key's waiters queue apart, in order; a freed slot goes to the keys in
 * turn (the one waiting longest since its last turn first), so one key with many waiters cannot
 * keep every slot while another key's single one waits behind them all. A waiter leaves when its
 * signal aborts or its wait runs out. With one key this is a plain FIFO semaphore.
 */
export class Semaphore {
  readonly limit: number;
  #held = 0;
  /** Holders per key; a key leaves when it holds none. */
  readonly #heldByKey = new Map<string, number>();
  /** Keys with waiters, in turn order (a Map keeps insertion order; a served key goes to the back). */
  readonly #queues = new Map<string, Waiter[]>();

  constructor(limit = Number.POSITIVE_INFINITY) {
    this.limit = limit;
  }

  /** Slots taken now. */
  get held(): number {
    return this.#held;
  }

  /** A slot when one is free now for `key` (whose slot this is: a caller, a deployment) and none of its own waiters is ahead, else undefined. */
  tryAcquire(key = soleKey, keyLimit = Number.POSITIVE_INFINITY): (() => void) | undefined {
    return this.#admitsNow(key, keyLimit) ? this.#take(key) : undefined;
  }

  /**
   * A slot, waiting in order (with one key) or for `key`'s turn; rejects with the signal's reason
   * when it aborts first, or with `options.wait.busy()` when the wait runs out.
   */
  async acquire(...request: [signal: AbortSignal] | [key: string, signal: AbortSignal, options?: SlotOptions]): Promise<() => void> {
    const [key, signal, options = {}] = request.length === 1 ? [soleKey, ...request] : request;
    if (options.wait === undefined) return this.#acquire(key, signal, options);
    const { ms, busy } = options.wait;
    const waited = new AbortController();
    const timer = setTimeout(() => waited.abort(busy()), ms);
    try {
      return await this.#acquire(key, AbortSignal.any([signal, waited.signal]), options);
    } finally {
      clearTimeout(timer);
    }
  }

  async #acquire(key: string, signal: AbortSignal, options: SlotOptions): Promise<() => void> {
    signal.throwIfAborted();
    const keyLimit = options.keyLimit ?? Number.POSITIVE_INFINITY;
    if (this.#admitsNow(key, keyLimit)) return this.#take(key);
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        keyLimit,
        admit: () => {
          signal.removeEventListener('abort', leave);
          resolve();
        },
      };
      const leave = () => {
        this.#remove(key, waiter);
        // A waiter of the same key behind it may have a higher limit of its own.
        this.#admitWaiters();
        reject(abortReason(signal));
      };
      const queue = this.#queues.get(key);
      if (queue === undefined) this.#queues.set(key, [waiter]);
      else queue.push(waiter);
      signal.addEventListener('abort', leave, { once: true });
    });
    // The slot was counted for this key when the waiter was admitted.
    return this.#releaser(key);
  }

  /**
   * Whether `key` may hold one more now. Waiters only wait while no slot is free for them, so
   * with a shared slot free the waiters left are all at their own key's limit: another key need
   * not queue behind them, but `key`'s own waiters keep their order.
   */
  #admitsNow(key: string, keyLimit: number): boolean {
    return this.#held < this.limit && (this.#heldByKey.get(key) ?? 0) < keyLimit && !this.#queues.has(key);
  }

  #take(key: string): () => void {
    this.#count(key, 1);
    return this.#releaser(key);
  }

  #count(key: string, change: number): void {
    this.#held += change;
    const held = (this.#heldByKey.get(key) ?? 0) + change;
    if (held === 0) this.#heldByKey.delete(key);
    else this.#heldByKey.set(key, held);
  }

  #remove(key: string, waiter: Waiter): void {
    const queue = this.#queues.get(key);
    if (queue === undefined) return;
    const index = queue.indexOf(waiter);
    if (index >= 0) queue.splice(index, 1);
    if (queue.length === 0) this.#queues.delete(key);
  }

  /** Admits waiters while a shared slot is free: each key in turn, skipping keys at their own limit; a served key goes to the back. */
  #admitWaiters(): void {
    let admitted = true;
    while (admitted && this.#held < this.limit) {
      admitted = false;
      for (const [key, queue] of this.#queues) {
        const waiter = queue[0];
        if (waiter === undefined || (this.#heldByKey.get(key) ?? 0) >= waiter.keyLimit) continue;
        queue.shift();
        this.#queues.delete(key);
        if (queue.length > 0) this.#queues.set(key, queue);
        this.#count(key, 1);
        waiter.admit();
        admitted = true;
        break;
      }
    }
  }

  #releaser(key: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#count(key, -1);
      this.#admitWaiters();
    };
  }
}
