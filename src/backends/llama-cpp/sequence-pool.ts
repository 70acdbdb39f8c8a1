import { abortReason } from '../../core/errors/abort-reason.ts';

/**
 * Hands out a context's sequences, one request each. A request that finds none free waits in
 * line (first come, first served) until one is released or its signal aborts; an aborted waiter
 * leaves the line at once, so a client that went away never takes a sequence.
 */
export class SequencePool<Sequence> {
  readonly #free: Sequence[];
  readonly #waiting: Waiter<Sequence>[] = [];

  constructor(sequences: readonly Sequence[]) {
    this.#free = [...sequences];
  }

  /** How many requests wait for a sequence now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  acquire(signal: AbortSignal): Promise<Sequence> {
    if (signal.aborted) return Promise.reject(abortReason(signal));
    const free = this.#free.shift();
    if (free !== undefined) return Promise.resolve(free);
    return new Promise<Sequence>((resolve, reject) => {
      const waiter: Waiter<Sequence> = {
        resolve: (sequence) => {
          signal.removeEventListener('abort', onAbort);
          resolve(sequence);
        },
      };
      const onAbort = (): void => {
        const index = this.#waiting.indexOf(waiter);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(abortReason(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  release(sequence: Sequence): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#free.push(sequence);
    else next.resolve(sequence);
  }
}

interface Waiter<Sequence> {
  readonly resolve: (sequence: Sequence) => void;
}
