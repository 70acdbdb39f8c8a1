/** Per-key limits on running tasks in this process (a handler's `concurrency(task)`). */
export class ConcurrencySlots {
  readonly #held = new Map<string, number>();
  readonly #waiting = new Map<string, (() => void)[]>();

  /** A slot now, or undefined when the key is at its limit. */
  tryAcquire(key: string, limit: number): (() => void) | undefined {
    const held = this.#held.get(key) ?? 0;
    if (held >= limit) return undefined;
    this.#held.set(key, held + 1);
    return this.#releaser(key);
  }

  /** Waits for a slot, in order; rejects when the signal aborts first. */
  async acquire(key: string, limit: number, signal: AbortSignal): Promise<() => void> {
    for (;;) {
      signal.throwIfAborted();
      const release = this.tryAcquire(key, limit);
      if (release !== undefined) return release;
      await new Promise<void>((resolve) => {
        const queue = this.#waiting.get(key) ?? [];
        const wake = () => {
          signal.removeEventListener('abort', wake);
          const index = queue.indexOf(wake);
          if (index >= 0) queue.splice(index, 1);
          resolve();
        };
        queue.push(wake);
        this.#waiting.set(key, queue);
        signal.addEventListener('abort', wake, { once: true });
      });
    }
  }

  #releaser(key: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const held = (this.#held.get(key) ?? 1) - 1;
      if (held === 0) this.#held.delete(key);
      else this.#held.set(key, held);
      this.#waiting.get(key)?.[0]?.();
    };
  }
}
