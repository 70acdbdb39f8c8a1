import type { Socket } from 'node:net';
import { Http1ResponseParser, HttpProtocolError, type ResponseEvents, type ResponseHead } from './http1-response-parser.ts';

/** What the caller of one request hears: the answer as it arrives, or what ended it. */
export interface AnswerHandler {
  onHead(head: ResponseHead): void;
  onBody(chunk: Buffer): void;
  onEnd(): void;
  /** Once at most, and never after onEnd: the connection failed, the answer was not HTTP, or the request was aborted. */
  onError(error: Error): void;
}

/** One request on its way: written as soon as a connection is free. */
export interface OutgoingRequest {
  readonly head: string;
  readonly body: string | Buffer;
  readonly handler: AnswerHandler;
}

/** What a connection tells its pool. */
export interface ConnectionOwner {
  /** The answer is complete and the connection can carry the next request. */
  released(connection: Http1Connection): void;
  /** The socket is gone (closed, failed or destroyed). */
  closed(connection: Http1Connection): void;
}

/**
 * One keep-alive connection to an engine, carrying one request at a time. An idle connection is
 * still read: a byte that arrives while no request is outstanding is not an answer to anything,
 * and the connection is closed, so it can never be taken for the answer to the next request.
 */
export class Http1Connection implements ResponseEvents {
  readonly #socket: Socket;
  readonly #owner: ConnectionOwner;
  #request: OutgoingRequest | undefined;
  #parser: Http1ResponseParser | undefined;
  #head: ResponseHead | undefined;
  #complete = false;
  #closed = false;
  /** When the connection last became idle (performance.now()), and how long it may stay so. */
  idleSince = 0;
  idleLimitMs = 0;

  constructor(socket: Socket, owner: ConnectionOwner) {
    this.#socket = socket;
    this.#owner = owner;
    socket.setNoDelay(true);
    socket.on('data', (data: Buffer) => this.#onData(data));
    socket.on('end', () => this.#onSocketEnd());
    socket.on('error', (error: Error) => this.#fail(error));
    socket.on('close', () => this.#onSocketClose());
  }

  get idle(): boolean {
    return this.#request === undefined && !this.#closed;
  }

  send(request: OutgoingRequest): void {
    this.#request = request;
    this.#parser = new Http1ResponseParser(this);
    this.#head = undefined;
    this.#complete = false;
    const socket = this.#socket;
    socket.ref();
    if (typeof request.body === 'string') {
      // One write, so one segment for a small request: the head and a JSON body together.
      socket.write(request.head + request.body);
    } else {
      socket.cork();
      socket.write(request.head);
      socket.write(request.body);
      socket.uncork();
    }
  }

  /** Stops reading the answer until resume() (a reader that has fallen behind). */
  pause(request: OutgoingRequest): void {
    if (this.#request === request) this.#socket.pause();
  }

  resume(request: OutgoingRequest): void {
    if (this.#request === request) this.#socket.resume();
  }

  /** Ends `request` with `reason` and closes the connection (an answer half read cannot be skipped). */
  abort(request: OutgoingRequest, reason: Error): void {
    if (this.#request !== request || this.#complete) return;
    this.#fail(reason);
  }

  destroy(): void {
    this.#socket.destroy();
  }

  onHead(head: ResponseHead): void {
    this.#head = head;
    this.#request?.handler.onHead(head);
  }

  onBody(chunk: Buffer): void {
    this.#request?.handler.onBody(chunk);
  }

  onEnd(): void {
    this.#complete = true;
  }

  #onData(data: Buffer): void {
    const parser = this.#parser;
    if (parser === undefined || this.#complete) {
      this.#fail(new HttpProtocolError('the engine sent bytes while no request was outstanding'));
      return;
    }
    try {
      parser.execute(data);
    } catch (error) {
      // Bytes after a complete answer: the answer stands, the connection is not used again.
      if (this.#complete) this.#socket.destroy();
      else this.#fail(error as Error);
    }
    if (this.#complete) this.#answered();
  }

  #answered(): void {
    const request = this.#request;
    if (request === undefined) return;
    this.#request = undefined;
    this.#parser = undefined;
    if (!this.#closed && this.#head?.keepAlive === true && !this.#socket.destroyed) {
      // A reader that fell behind may have paused the socket in the same read that ended its
      // answer: an idle connection always reads (the next answer, or bytes nobody asked for).
      if (this.#socket.isPaused()) this.#socket.resume();
      const hint = this.#head.keepAliveSeconds;
      this.idleLimitMs = hint === undefined ? Number.POSITIVE_INFINITY : Math.max(0, hint * 1000 - 1000);
      this.idleSince = performance.now();
      this.#socket.unref();
      this.#owner.released(this);
    } else {
      this.#socket.destroy();
    }
    request.handler.onEnd();
  }

  #onSocketEnd(): void {
    // An answer framed by the end of the connection is complete now; any other is cut short.
    if (this.#parser !== undefined && !this.#complete) {
      try {
        this.#parser.finish();
      } catch (error) {
        this.#fail(error as Error);
        return;
      }
      if (this.#complete) this.#answered();
    }
  }

  #onSocketClose(): void {
    if (this.#request !== undefined && !this.#complete) this.#fail(new Error('the engine closed the connection before its answer was complete'));
    if (!this.#closed) {
      this.#closed = true;
      this.#owner.closed(this);
    }
  }

  /** The request (if any) fails with `error` and the connection is closed. */
  #fail(error: Error): void {
    const request = this.#request;
    this.#request = undefined;
    this.#parser = undefined;
    this.#socket.destroy();
    if (request !== undefined && !this.#complete) request.handler.onError(error);
  }
}
