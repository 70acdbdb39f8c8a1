import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OutgoingHttpHeaders } from 'node:http';
import { ApiError } from '../core/errors/api-error.ts';
import { asApiError } from '../core/errors/engine-failure.ts';
import { engineFailureLogged } from '../core/logging/engine-failure-log.ts';
import { routeOf } from './route-of.ts';

const written = Promise.resolve();

/** One event as written on the wire: `data: <json>` and the blank line that ends it. */
function eventText(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/**
 * Server-sent events as every official client parses them (docs/wire.md §3.1): each event is
 * exactly `data: <json>\n\n`, the stream ends with `data: [DONE]\n\n`; no event, id, retry or
 * comment lines. Writes respect backpressure and stop quietly once the client is gone.
 */
export class SseWriter {
  readonly #request: FastifyRequest;
  readonly #reply: FastifyReply;
  #opened = false;
  /** The events of this turn not yet handed to the response (see #write). */
  #pending = '';
  #flushScheduled = false;
  /** While the response holds more than its high-water mark: resolves when it drains (or closes). */
  #drained: Promise<void> | undefined;

  constructor(request: FastifyRequest, reply: FastifyReply) {
    this.#request = request;
    this.#reply = reply;
  }

  get opened(): boolean {
    return this.#opened;
  }

  /** Whether the client can still receive events. */
  get writable(): boolean {
    const raw = this.#reply.raw;
    return !raw.destroyed && !raw.writableEnded;
  }

  /** Sends the 200 and the headers; from here on failures travel in-band. */
  open(): void {
    this.#reply.hijack();
    this.#reply.raw.writeHead(200, {
      // Those the route set before the stream opened (the deployment that serves it).
      ...(this.#reply.getHeaders() as OutgoingHttpHeaders),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      // nginx (and proxies that follow it) relay the events as written instead of buffering them.
      'x-accel-buffering': 'no',
      'x-request-id': this.#request.requestId,
    });
    this.#opened = true;
    // The active-streams gauge counts it until it ends, whichever side ends it.
    this.#request.responseEnd.onEnd(this.#request.server.metrics.streamOpened(routeOf(this.#request).url ?? ''));
  }

  /** Resolves once the event is handed to the socket, or, under backpressure, once it drains. */
  send(data: unknown): Promise<void> {
    return this.#write(eventText(data));
  }

  /**
   * Adds the event to what goes out at the next `flush` (or `send`): a producer with several
   * events at hand (the parts of one engine read) writes them together without a turn's wait.
   */
  add(data: unknown): void {
    if (this.writable) this.#queue(eventText(data));
  }

  /** Hands what was added to the response now; under backpressure, a promise that resolves when it drains (or closes). */
  flush(): Promise<void> | undefined {
    this.#flush();
    return this.#drained;
  }

  /**
   * The error that ends this stream in band, as the client will read it (an engine's failure
   * through the one mapping, a 500 for anything else); its code goes into the request's log line.
   * An unexpected error is logged here, once (an engine's failure has its own line already).
   */
  inBandError(error: unknown): ApiError {
    const platformError = asApiError(error);
    if (platformError === undefined && !engineFailureLogged(error)) this.#request.log.error({ err: error }, 'stream failed');
    const apiError = platformError ?? new ApiError('500');
    this.#request.errorCode = apiError.code;
    return apiError;
  }

  /** Writes `[DONE]` and ends the response. */
  async end(): Promise<void> {
    if (!this.writable) return;
    await this.#write('data: [DONE]\n\n');
    // The response ends now: what this turn holds goes first.
    this.#flush();
    this.#reply.raw.end();
  }

  /**
   * Events made in one turn of the event loop (one read of the engine's answer often holds many)
   * are handed to the response together, once the turn's promise jobs have run: one write, one
   * chunk of the chunked encoding and one socket write, instead of a write (and Node's four
   * pieces of chunk framing) per event: the proxy-like cost of a stream is its writes. Not
   * async: an event costs no promise of its own. Under backpressure (the response holds more
   * than its high-water mark) the next events wait until it drains.
   */
  #write(text: string): Promise<void> {
    if (!this.writable) return written;
    this.#queue(text);
    if (this.#pending !== '' && !this.#flushScheduled) {
      this.#flushScheduled = true;
      process.nextTick(this.#flushLater);
    }
    return this.#drained ?? written;
  }

  #queue(text: string): void {
    this.#pending = this.#pending === '' ? text : this.#pending + text;
    // A turn that makes more than the response should hold (a producer with everything at hand)
    // hands it over at once, so that the response's backpressure holds it back.
    if (this.#pending.length >= this.#reply.raw.writableHighWaterMark) this.#flush();
  }

  /** #flush as one function per stream, not a closure per turn. */
  readonly #flushLater = () => this.#flush();

  #flush(): void {
    this.#flushScheduled = false;
    const text = this.#pending;
    this.#pending = '';
    if (text === '' || !this.writable) return;
    const raw = this.#reply.raw;
    if (raw.write(text) || this.#drained !== undefined) return;
    this.#drained = new Promise<void>((resolve) => {
      const done = () => {
        raw.off('drain', done);
        raw.off('close', done);
        this.#drained = undefined;
        resolve();
      };
      raw.on('drain', done);
      raw.on('close', done);
    });
  }
}
