import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from './app-types.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Says when this request's response is over (installResponseEnd). */
    responseEnd: ResponseEnd;
  }
}

/** Told once, when the response is over: `complete` when the whole answer was handed to the socket. */
export type ResponseEndListener = (complete: boolean) => void;

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
  #listeners: ResponseEndListener[] | undefined;

  constructor(reply: FastifyReply) {
    const raw = reply.raw;
    raw.once('close', () => this.end(raw.writableFinished));
  }

  /** Whether the response ended before the whole answer went out: the client left. */
  get clientLeft(): boolean {
    return this.#ended && !this.#complete;
  }

  /** Runs `listener` at the end (at once when the response is over already). */
  onEnd(listener: ResponseEndListener): void {
    if (this.#ended) listener(this.#complete);
    else (this.#listeners ??= []).push(listener);
  }

  end(complete: boolean): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#complete = complete;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    for (const listener of listeners ?? []) listener(complete);
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
