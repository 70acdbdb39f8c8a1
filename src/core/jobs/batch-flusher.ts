/**
 * Writes what a recorder collected in memory: every `intervalMs` (on a timer that does not keep
 * the process alive) and whenever asked, one write at a time: a call during a write shares it.
 * `close` stops the timer, waits for a write under way and writes what is left.
 */
export class BatchFlusher {
  readonly #drain: () => Promise<void>;
  readonly #timer: NodeJS.Timeout;
  #flushing: Promise<void> | undefined;

  constructor(drain: () => Promise<void>, intervalMs: number) {
    this.#drain = drain;
    this.#timer = setInterval(() => void this.flush(), intervalMs);
    this.#timer.unref();
  }

  flush(): Promise<void> {
    this.#flushing ??= this.#drain().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#flushing;
    await this.flush();
  }
}
