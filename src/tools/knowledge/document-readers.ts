import { availableParallelism } from 'node:os';
import { Semaphore } from '../../core/backends/concurrency-limit.ts';
import { ApiError } from '../../core/errors/api-error.ts';

/** Default of `knowledge.maxConcurrentReaders`: one reader thread a core (two at least), as for ffprobe. */
export const defaultMaxDocumentReaders = Math.max(2, availableParallelism());

/** How long an upload waits for a reader before it is refused: a reader takes at most `knowledge.readTimeoutMs`, most far less. */
const documentReaderWaitMs = 30_000;

/**
 * The document readers of the whole server: each HTML page or PDF read for a knowledge base is a
 * thread with its own heap (hundreds of MB at worst), so at most `limit` run at once, whoever
 * uploads. Uploads beyond wait their turn, taken by callers in rotation, and are refused with
 * 1305 when none comes free within `documentReaderWaitMs`.
 */
export class DocumentReaders {
  readonly #slots: Semaphore;
  readonly #waitMs: number;

  constructor(limit = defaultMaxDocumentReaders, waitMs = documentReaderWaitMs) {
    this.#slots = new Semaphore(limit);
    this.#waitMs = waitMs;
  }

  /** Readers at work now. */
  get busy(): number {
    return this.#slots.held;
  }

  /** Runs `read` once a reader is free for `caller` (the API key). */
  async read<Result>(caller: string, signal: AbortSignal, read: () => Promise<Result>): Promise<Result> {
    const limit = this.#slots.limit;
    const waitMs = this.#waitMs;
    const release = await this.#slots.acquire(caller, signal, {
      wait: {
        ms: waitMs,
        busy: () =>
          new ApiError(
            '1305',
            `The server is reading ${limit} documents at once (knowledge.maxConcurrentReaders) and none finished within ${waitMs / 1000} s; upload the file again shortly.`,
          ),
      },
    });
    try {
      return await read();
    } finally {
      release();
    }
  }
}
