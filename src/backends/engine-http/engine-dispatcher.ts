import { LRUCache } from 'lru-cache';
import { Client, Dispatcher, Pool } from 'undici';

/**
 * Keep-alive for engine connections: an idle connection is not reused after 4 s (or the engine's
 * own Keep-Alive timeout less 1 s). uvicorn (vLLM, SGLang), llama.cpp's server and Node close idle
 * connections after 5 s, often without saying so, and a request written as the engine closes fails.
 */
const keepAlive = { keepAliveTimeout: 4_000, keepAliveTimeoutThreshold: 1_000, keepAliveMaxTimeout: 60_000 } as const;

/** A connection that does not open in this long fails the call (an engine host that drops SYNs). */
const connectTimeoutMs = 10_000;

/** Engines are configured, so their origins are few; past this many the least recently used pool is closed. */
const maxOrigins = 256;

/**
 * HTTP/1.1 without pipelining (an engine's answers are long; a second request behind one would
 * wait for it), up to 256 connections an engine. undici parses every answer strictly, closes a
 * connection whose bytes do not parse or that sends bytes when no request is waiting, and checks an
 * idle connection for bytes and closes before writing the next request on it, so an engine's stray
 * bytes that arrived never become another call's answer.
 */
const poolOptions: Pool.Options = { connections: 256, pipelining: 1, connect: { timeout: connectTimeoutMs }, ...keepAlive };

/**
 * One undici Pool per engine origin, kept while the process runs. undici's Agent closes an
 * origin's pool whenever its last connection closes, and (undici 7) the disconnects of the closed
 * pool's connections then count against the pool that replaced it, closing that one too: against
 * llama.cpp's server, which closes a connection after every streamed answer and after 100
 * requests, an Agent opened a new connection for about every third non-streamed call instead of
 * keeping one. A Pool keeps its connections, and a new one takes a closed one's place.
 */
class EnginePools extends Dispatcher {
  readonly #pools = new LRUCache<string, Pool>({
    max: maxOrigins,
    // A pool pushed out finishes its requests, then closes its connections (close and destroy end their own).
    dispose: (pool, _origin, reason) => {
      if (reason === 'evict') pool.close().catch(() => undefined);
    },
  });

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const origin = String(options.origin);
    let pool = this.#pools.get(origin);
    if (pool === undefined || pool.closed) {
      pool = new Pool(origin, poolOptions);
      this.#pools.set(origin, pool);
    }
    return pool.dispatch(options, handler);
  }

  /** Finishes the requests under way, then closes every connection (a one-shot command that is done). */
  override async close(callback?: () => void): Promise<void> {
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
    callback?.();
  }

  override async destroy(error?: Error | null | (() => void), callback?: () => void): Promise<void> {
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((pool) => pool.destroy(typeof error === 'function' ? null : (error ?? null))));
    (typeof error === 'function' ? error : callback)?.();
  }
}

/** The one dispatcher every engine call goes through: a pool of keep-alive connections per engine origin. */
export const engineDispatcher: Dispatcher = new EnginePools();

/**
 * A connection of its own for one request, closed after it: the retry of a request that failed on
 * a reused connection must not meet another connection the engine has closed meanwhile (llama.cpp's
 * server closes one after every streamed answer although its headers say keep-alive).
 */
export function freshConnection(origin: string): Client {
  return new Client(origin, { pipelining: 1, connect: { timeout: connectTimeoutMs }, ...keepAlive });
}
