import { connect as connectTcp, isIP } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { Http1Connection, type AnswerHandler, type ConnectionOwner, type OutgoingRequest } from './http1-connection.ts';

export interface Http1AgentOptions {
  /** Connections open at once per origin; further requests wait for one to be free. */
  readonly connectionsPerOrigin: number;
  /** An idle connection is closed after this long (or sooner when the server's Keep-Alive says so). */
  readonly idleTimeoutMs: number;
}

/** The target of a request: `http:` or `https:`, host and port, as a URL gives them. */
export interface Http1Origin {
  readonly protocol: string;
  readonly hostname: string;
  readonly port: string;
  /** The Host header: the hostname, with the port unless it is the scheme's default. */
  readonly host: string;
}

/** What the caller can do with a request it started. */
export interface RequestControl {
  pause(): void;
  resume(): void;
  /** Ends the request with `reason` (its handler's onError), closing its connection if it had one. */
  abort(reason: Error): void;
}

/** Any CR, LF or NUL in a header value would let it write a header of its own. */
const unsafeHeaderValue = /[\r\n\0]/;

/**
 * A client for POSTs to inference engines over HTTP/1.1 (TLS for https), with keep-alive
 * connections pooled per origin. Built for the engine call on every chat request: a request is
 * written with one socket write as soon as it is made, its answer is parsed in place
 * (Http1ResponseParser), and nothing is allocated per call beyond the request and its parser.
 * undici did the same work at ~3x the CPU per call (BENCHMARKS.md "bench:chat", session 7).
 * No retries: an engine call is not idempotent.
 */
export class Http1Agent {
  readonly #options: Http1AgentOptions;
  readonly #pools = new Map<string, OriginPool>();
  #sweeper: NodeJS.Timeout | undefined;

  constructor(options: Http1AgentOptions) {
    this.#options = options;
  }

  /**
   * POSTs `body` to `path` on `origin` with `headers` (names in lower case; Host and
   * Content-Length are added). The handler hears the answer; a header value that could break the
   * request fails it through onError.
   */
  post(origin: Http1Origin, path: string, headers: Readonly<Record<string, string>>, body: string | Buffer, handler: AnswerHandler): RequestControl {
    let head = `POST ${path} HTTP/1.1\r\nhost: ${origin.host}\r\n`;
    for (const name in headers) {
      const value = headers[name] as string;
      if (unsafeHeaderValue.test(value)) {
        handler.onError(new TypeError(`invalid ${name} header: its value holds a line break or NUL`));
        return inert;
      }
      head += `${name}: ${value}\r\n`;
    }
    head += `content-length: ${typeof body === 'string' ? Buffer.byteLength(body) : body.length}\r\n\r\n`;
    const key = `${origin.protocol}//${origin.host}`;
    let pool = this.#pools.get(key);
    if (pool === undefined) {
      pool = new OriginPool(origin, this.#options);
      this.#pools.set(key, pool);
      this.#sweeper ??= setInterval(() => this.#sweep(), 1000).unref();
    }
    const request = new Http1Request(head, body, handler, pool);
    pool.dispatch(request);
    return request;
  }

  /** Closes every connection; requests in flight fail. */
  close(): void {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    for (const pool of this.#pools.values()) pool.close();
    this.#pools.clear();
  }

  #sweep(): void {
    const now = performance.now();
    for (const pool of this.#pools.values()) pool.closeExpired(now);
  }
}

const inert: RequestControl = { pause: () => undefined, resume: () => undefined, abort: () => undefined };

/** A request and the connection that carries it, once it has one. */
class Http1Request implements OutgoingRequest, RequestControl {
  readonly head: string;
  readonly body: string | Buffer;
  readonly handler: AnswerHandler;
  readonly #pool: OriginPool;
  connection: Http1Connection | undefined;

  constructor(head: string, body: string | Buffer, handler: AnswerHandler, pool: OriginPool) {
    this.head = head;
    this.body = body;
    this.handler = handler;
    this.#pool = pool;
  }

  pause(): void {
    this.connection?.pause(this);
  }

  resume(): void {
    this.connection?.resume(this);
  }

  abort(reason: Error): void {
    if (this.connection === undefined) this.#pool.withdraw(this, reason);
    else this.connection.abort(this, reason);
  }
}

/** The connections to one origin and the requests waiting for one. */
class OriginPool implements ConnectionOwner {
  readonly #origin: Http1Origin;
  readonly #options: Http1AgentOptions;
  /** Idle connections, the most recently used last (taken first: its socket is the warmest). */
  readonly #idle: Http1Connection[] = [];
  readonly #waiting: Http1Request[] = [];
  /** Connections open or opening, idle or busy. */
  readonly #connections = new Set<Http1Connection>();

  constructor(origin: Http1Origin, options: Http1AgentOptions) {
    this.#origin = origin;
    this.#options = options;
  }

  dispatch(request: Http1Request): void {
    const connection = this.#idleConnection(performance.now()) ?? (this.#connections.size < this.#options.connectionsPerOrigin ? this.#connect() : undefined);
    if (connection === undefined) this.#waiting.push(request);
    else this.#send(connection, request);
  }

  /** A request that waits for a connection leaves the queue, ended by `reason`. */
  withdraw(request: Http1Request, reason: Error): void {
    const index = this.#waiting.indexOf(request);
    if (index === -1) return;
    this.#waiting.splice(index, 1);
    request.handler.onError(reason);
  }

  released(connection: Http1Connection): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#idle.push(connection);
    else this.#send(connection, next);
  }

  closed(connection: Http1Connection): void {
    this.#connections.delete(connection);
    const index = this.#idle.indexOf(connection);
    if (index !== -1) this.#idle.splice(index, 1);
    const next = this.#waiting.shift();
    if (next !== undefined) this.#send(this.#connect(), next);
  }

  closeExpired(now: number): void {
    for (const connection of this.#idle.filter((candidate) => this.#expired(candidate, now))) connection.destroy();
  }

  close(): void {
    for (const request of this.#waiting.splice(0)) request.handler.onError(new Error('the engine client was closed'));
    for (const connection of this.#connections) connection.destroy();
  }

  #idleConnection(now: number): Http1Connection | undefined {
    for (;;) {
      const connection = this.#idle.pop();
      if (connection === undefined) return undefined;
      if (connection.idle && !this.#expired(connection, now)) return connection;
      connection.destroy();
    }
  }

  #expired(connection: Http1Connection, now: number): boolean {
    return now - connection.idleSince >= Math.min(this.#options.idleTimeoutMs, connection.idleLimitMs);
  }

  #connect(): Http1Connection {
    const { protocol, hostname } = this.#origin;
    const port = Number(this.#origin.port === '' ? (protocol === 'https:' ? 443 : 80) : this.#origin.port);
    const socket =
      protocol === 'https:'
        ? connectTls({ host: hostname, port, servername: isIP(hostname) === 0 ? hostname : '', ALPNProtocols: ['http/1.1'] })
        : connectTcp({ host: hostname, port });
    const connection = new Http1Connection(socket, this);
    this.#connections.add(connection);
    return connection;
  }

  #send(connection: Http1Connection, request: Http1Request): void {
    request.connection = connection;
    connection.send(request);
  }
}
