import { ApiError } from '../errors/api-error.ts';
import type { ChatUsage } from './chat-types.ts';

/** The connection to an engine broke or could not be made; mid-stream it ends the answer with `network_error`. */
export class EngineConnectionError extends Error {
  /**
   * The last usage the engine reported before its stream broke (an engine that reports usage on
   * every chunk, or one that broke just after its usage chunk); undefined when it reported none.
   */
  readonly usage: ChatUsage | undefined;

  constructor(message: string, options?: { cause?: unknown; usage?: ChatUsage | undefined }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EngineConnectionError';
    this.usage = options?.usage;
  }

  /** The same failure, carrying the usage the engine reported before it (kept if none is given). */
  withUsage(usage: ChatUsage | undefined): EngineConnectionError {
    if (usage === undefined) return this;
    const copy = new EngineConnectionError(this.message, { cause: this.cause, usage });
    if (this.stack !== undefined) copy.stack = this.stack;
    return copy;
  }
}

/** How an engine connection failure reads to a client before the first byte of the answer. */
export function engineUnreachable(model: string, detail: string): ApiError {
  return new ApiError('1234', `The engine for model '${model}' could not be reached: ${detail}.`);
}
