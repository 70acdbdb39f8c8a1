/** How a watched stream ended: it ran out, its `next()` failed, or its consumer stopped it (`return()`). */
export type PartsEnd = { readonly kind: 'done' } | { readonly kind: 'stopped' } | { readonly kind: 'failed'; readonly error: unknown };

export type PartsWatcher = (end: PartsEnd) => void;

const done: PartsEnd = { kind: 'done' };
const stopped: PartsEnd = { kind: 'stopped' };

/**
 * A stream passed on as it is, with watchers told once how it ended. Each part costs the inner
 * `next()` and one `.then`, however many watchers there are: watching a stream that is already
 * watched and not yet read adds the watcher to it instead of another layer (the router watching
 * a deployment's stream that the metrics decorator watches). A result read ahead (`first`, the
 * part that commits a routed stream) is handed out before the inner iterator is asked again.
 */
export class WatchedParts<Part> implements AsyncIterableIterator<Part> {
  readonly #inner: AsyncIterator<Part>;
  readonly #watchers: PartsWatcher[] = [];
  #first: IteratorResult<Part> | undefined;
  #started = false;
  #ended = false;

  private constructor(inner: AsyncIterator<Part>) {
    this.#inner = inner;
  }

  /** `parts` with `watcher` told how it ends; the same object when `parts` is already watched and unread. */
  static of<Part>(parts: AsyncIterable<Part>, watcher: PartsWatcher): WatchedParts<Part> {
    const watched = parts instanceof WatchedParts && !parts.#started ? (parts as WatchedParts<Part>) : new WatchedParts(parts[Symbol.asyncIterator]());
    watched.#watchers.push(watcher);
    return watched;
  }

  /** Reads the first result ahead, to hand it out on the first `next()`; its failure ends the stream (watchers told) and is thrown. */
  async readAhead(): Promise<IteratorResult<Part>> {
    const first = await this.next();
    this.#first = first;
    this.#started = true;
    return first;
  }

  next(): Promise<IteratorResult<Part>> {
    this.#started = true;
    const first = this.#first;
    if (first !== undefined) {
      this.#first = undefined;
      return Promise.resolve(first);
    }
    if (this.#ended) return Promise.resolve({ done: true, value: undefined });
    return this.#inner.next().then(this.#passed, this.#failed);
  }

  async return(value?: unknown): Promise<IteratorResult<Part>> {
    this.#started = true;
    this.#first = undefined;
    if (this.#ended) return { done: true, value: undefined };
    this.#end(stopped);
    // The inner stream is told too (the engine's request is cancelled), as `for await` and `yield*` do.
    await this.#inner.return?.(value);
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  readonly #passed = (result: IteratorResult<Part>): IteratorResult<Part> => {
    if (result.done === true) this.#end(done);
    return result;
  };

  readonly #failed = (error: unknown): never => {
    this.#end({ kind: 'failed', error });
    throw error;
  };

  #end(end: PartsEnd): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const watcher of this.#watchers) watcher(end);
  }
}
