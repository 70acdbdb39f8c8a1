import { Agent, Client, type Dispatcher } from 'undici';

/**
 * Keep-alive for engine connections: an idle connection is not reused after 4 s (or the engine's
 * own Keep-Alive timeout less 1 s). uvicorn (vLLM, SGLang), llama.cpp's server and Node close idle
 * connections after 5 s, often without saying so, and a request written as the engine closes fails.
 */
const keepAlive = { keepAliveTimeout: 4_000, keepAliveTimeoutThreshold: 1_000, keepAliveMaxTimeout: 60_000 } as const;

/** A connection that does not open in this long fails the call (an engine host that drops SYNs). */
const connectTimeoutMs = 10_000;

/**
 * The one undici Agent every engine call goes through: a pool of keep-alive connections per
 * origin, HTTP/1.1 without pipelining (an engine's answers are long; a second request behind one
 * would wait for it). undici parses every answer strictly, closes a connection whose bytes do not
 * parse or that sends bytes when no request is waiting, and checks an idle connection for bytes
 * and closes before writing the next request on it, so an engine's stray bytes never become
 * another call's answer.
 */
export const engineDispatcher: Dispatcher = new Agent({ connections: 256, pipelining: 1, connect: { timeout: connectTimeoutMs }, ...keepAlive });

/**
 * A connection of its own for one request, closed after it: the retry of a request that failed on
 * a reused connection must not meet another connection the engine has closed meanwhile (llama.cpp's
 * server closes one after every streamed answer although its headers say keep-alive).
 */
export function freshConnection(origin: string): Client {
  return new Client(origin, { pipelining: 1, connect: { timeout: connectTimeoutMs }, ...keepAlive });
}
