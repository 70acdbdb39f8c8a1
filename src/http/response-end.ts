import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from './app-types.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Says when this request's response is over (installResponseEnd). */
    responseEnd: ResponseEnd;
  }
}

/**
 * Told once, when the response is over: `complete` when the whole answer was handed to the
 * socket; `reply` is the request's, so that a hook can give every request the same listener.
 */
export type ResponseEndListener = (complete: boolean, reply: FastifyReply) => void;

/**
 * The end of one request's response, once: complete (Fastify's onResponse, on the response's
 * 'finish') or cut short (the connection's 'close' came first: the client left). Everything that
 * waits for it — request metrics, an admission ticket, the client-disconnect signal — shares one
 * 'close' listener rather than adding a pair of its own per request. light-my-request (inject)
 * responses never emit 'close'; onResponse still ends them.
 */
export class ResponseEnd {
  #ended = false;
  #complete = false;
  // The first listener is held alone: most requests have one or two, and an array grown by a
  // push has room for seventeen.
  #listener: ResponseEndListener | undefined;
  #moreListeners: ResponseEndListener[] | undefined;
  /** Made when the request's signal is first asked for (clientLeftSignal). */
  #clientLeft: AbortController | undefined;
  readonly #reply: FastifyReply;

  constructor(reply: FastifyReply) {
    this.#reply = reply;
    const raw = reply.raw;
    // 'close' comes once; end() is idempotent, so `on` (no once-wrapper per request) is enough.
    raw.on('close', () => this.end(raw.writableFinished));
  }

  /** Whether the response ended before the whole answer went out: the client left. */
  get clientLeft(): boolean {
    return this.#ended && !this.#complete;
  }

  /**
   * The request's signal for the work it starts (engine calls): aborted with 'the client closed
   * the connection' when the response ends before the whole answer went out, after the end's
   * listeners. One per request, made when first asked for: requests that start no such work
   * make none.
   */
  clientLeftSignal(): AbortSignal {
    if (this.#clientLeft === undefined) {
      this.#clientLeft = new AbortController();
      if (this.clientLeft) this.#abort();
    }
    return this.#clientLeft.signal;
  }

  /** Runs `listener` at the end (at once when the response is over already). */
  onEnd(listener: ResponseEndListener): void {
    if (this.#ended) listener(this.#complete, this.#reply);
    else if (this.#listener === undefined) this.#listener = listener;
    else if (this.#moreListeners === undefined) this.#moreListeners = [listener];
    else this.#moreListeners.push(listener);
  }

  end(complete: boolean): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#complete = complete;
    const first = this.#listener;
    const more = this.#moreListeners;
    this.#listener = undefined;
    this.#moreListeners = undefined;
    first?.(complete, this.#reply);
    if (more !== undefined) for (const listener of more) listener(complete, this.#reply);
    if (!complete) this.#abort();
  }

  #abort(): void {
    this.#clientLeft?.abort(new Error('the client closed the connection'));
  }
}

/** Gives every request its ResponseEnd; install before any hook that uses it. */
export function installResponseEnd(app: App): void {
  app.decorateRequest('responseEnd', undefined as unknown as ResponseEnd);
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    request.responseEnd = new ResponseEnd(reply);
    done();
  });
  // Fastify runs onResponse from its own 'finish' listener, for hijacked replies (streams) too.
  // It runs on the response's 'error' as well (a response whose connection broke is not complete;
  // writableFinished also waits for the socket's buffer, and inject's responses never get there).
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    request.responseEnd?.end(!reply.raw.destroyed || reply.raw.writableFinished);
    done();
  });
}
