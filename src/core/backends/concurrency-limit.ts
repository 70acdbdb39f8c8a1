import { abortReason } from '../errors/abort-reason.ts';

/** Admits at most `limit` holders at once; the others wait in order, or leave when their signal aborts. */
export class Semaphore {
  readonly #limit: number;
  #held = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** A slot when one is free now (and nobody waits for one), else undefined. */
  tryAcquire(): (() => void) | undefined {
    if (this.#held >= this.#limit || this.#waiting.length > 0) return undefined;
    this.#held += 1;
    return this.#releaser();
  }

  async acquire(signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted();
    if (this.#held < this.#limit) {
      this.#held += 1;
      return this.#releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const admit = () => {
        signal.removeEventListener('abort', leave);
        resolve();
      };
      const leave = () => {
        const index = this.#waiting.indexOf(admit);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(abortReason(signal));
      };
      this.#waiting.push(admit);
      signal.addEventListener('abort', leave, { once: true });
    });
    return this.#releaser();
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      // The slot passes straight to the next waiter; otherwise it is freed.
      if (next === undefined) this.#held -= 1;
      else next();
    };
  }
}
