import { EngineFailure } from '../errors/engine-failure.ts';
import type { ChatUsage } from './chat-types.ts';

/**
 * The connection to an engine broke while its answer streamed: it ends the answer with
 * `network_error`. Part of the answer went out already, so no other engine can take the call over.
 */
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

/** An engine connection failure before the first byte of the answer: `timeout` when the deadline passed first. */
export function engineUnreachable(model: string, detail: string, kind: 'unreachable' | 'timeout' = 'unreachable', cause?: unknown): EngineFailure {
  return new EngineFailure(kind, model, `The engine for model '${model}' could not be reached: ${detail}.`, { cause });
}
