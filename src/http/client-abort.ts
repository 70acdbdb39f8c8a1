import type { FastifyReply } from 'fastify';
import type { LazyAbortSignal } from '../core/chat/abort-source.ts';
import type { ResponseEnd } from './response-end.ts';

/** A signal that fires when the client goes away before its answer is complete, so engine work stops. */
export function abortOnDisconnect(reply: FastifyReply): AbortSignal {
  return new ClientAbort(reply.request.responseEnd).signal;
}

/**
 * The same, lighter, for code that takes an AbortSource (the chat route: every chat request has
 * one, and an AbortSignal, an EventTarget, costs ~4 µs to make and subscribe to): a flag and a
 * list. A real AbortSignal is made only when some code asks for `signal`.
 */
export class ClientAbort implements LazyAbortSignal {
  #reason: Error | undefined;
  #listeners: (() => void)[] | undefined;
  #signal: AbortSignal | undefined;

  constructor(responseEnd: ResponseEnd) {
    responseEnd.onEnd((complete) => {
      if (!complete) this.#abort(new Error('the client closed the connection'));
    });
  }

  get aborted(): boolean {
    return this.#reason !== undefined;
  }

  get reason(): Error | undefined {
    return this.#reason;
  }

  /** Listeners run once, when the client leaves (so `once` is how they all behave). */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.#reason !== undefined) return;
    (this.#listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const index = this.#listeners?.indexOf(listener) ?? -1;
    if (index >= 0) this.#listeners?.splice(index, 1);
  }

  throwIfAborted(): void {
    if (this.#reason !== undefined) throw this.#reason;
  }

  get signal(): AbortSignal {
    if (this.#signal === undefined) {
      const controller = new AbortController();
      if (this.#reason !== undefined) controller.abort(this.#reason);
      else this.addEventListener('abort', () => controller.abort(this.#reason));
      this.#signal = controller.signal;
    }
    return this.#signal;
  }

  #abort(reason: Error): void {
    if (this.#reason !== undefined) return;
    this.#reason = reason;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    for (const listener of listeners ?? []) listener();
  }
}
