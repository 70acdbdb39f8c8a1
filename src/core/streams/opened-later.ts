/**
 * A stream opened on its first `next()` (`open` may choose where it comes from, and wait), then
 * read straight from what `open` gave: no layer per part. `return()` before the first `next()`
 * opens nothing, as with a generator that never started.
 */
export class OpenedLater<Part> implements AsyncIterableIterator<Part> {
  readonly #open: () => Promise<AsyncIterator<Part>>;
  #inner: AsyncIterator<Part> | undefined;
  #opening: Promise<AsyncIterator<Part>> | undefined;
  #closed = false;

  constructor(open: () => Promise<AsyncIterator<Part>>) {
    this.#open = open;
  }

  next(): Promise<IteratorResult<Part>> {
    if (this.#inner !== undefined) return this.#inner.next();
    if (this.#closed) return Promise.resolve({ done: true, value: undefined });
    this.#opening ??= this.#open().then(
      (inner) => (this.#inner = inner),
      (error: unknown) => {
        // A stream that could not open has ended, like a generator that threw.
        this.#closed = true;
        throw error;
      },
    );
    return this.#opening.then((inner) => inner.next());
  }

  async return(value?: unknown): Promise<IteratorResult<Part>> {
    if (this.#inner === undefined && this.#opening !== undefined) await this.#opening.catch(() => undefined);
    this.#closed = true;
    const inner = this.#inner;
    if (inner?.return !== undefined) return inner.return(value);
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
