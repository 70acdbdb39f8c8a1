import { publicReason } from '../health/public-reason.ts';
import { ApiError } from './api-error.ts';
import type { ContentFilterVerdict } from './content-filter.ts';
import type { ErrorCode } from './error-catalogue.ts';

/**
 * What went wrong with an engine, in words that do not depend on the platform's public codes: a
 * backend says what happened, and `apiErrorOf` below alone decides what a client
 * sees. Routing reads the kind to decide whether another deployment may take the call.
 */
export type EngineFailureKind =
  /** The connection could not be made or broke before any answer (refused, reset, DNS). */
  | 'unreachable'
  /** No (complete) answer within the deadline. */
  | 'timeout'
  /** The engine said it is busy (HTTP 429, a rate limiter). */
  | 'overloaded'
  /** The engine or a proxy in front of it is down for now (HTTP 502/503/504). */
  | 'unavailable'
  /** Any other failure the engine reported (HTTP 5xx, a failed job). */
  | 'engine-error'
  /** The engine answered, but not in a form the platform can read or use. */
  | 'bad-answer'
  /** The engine sent more than a cap of the platform allows. */
  | 'too-large'
  /** The prompt does not fit the engine's context. */
  | 'context-too-long'
  /** The engine refused the input itself (HTTP 4xx about the request). */
  | 'rejected-input'
  /** The platform's configuration for this engine is wrong (credentials, address, workflow, files). */
  | 'misconfigured'
  /** The engine's safety filter refused the input or the answer. */
  | 'content-filtered'
  /** The answer broke off after it had begun. */
  | 'interrupted';

export interface EngineFailureDetails {
  /** The HTTP status the engine answered with, when it answered. */
  readonly engineStatus?: number | undefined;
  /** The engine's own message, one short line (never its raw body). */
  readonly engineMessage?: string | undefined;
  /**
   * Whether any part of the answer was passed on toward the client before the failure, or the
   * engine's work was done (its media generated): either way no other engine takes the call over.
   */
  readonly answerStarted?: boolean | undefined;
  /** For content-filtered: what was flagged; without it, the caller's input. */
  readonly contentFilter?: readonly ContentFilterVerdict[] | undefined;
  /**
   * An engine that speaks the platform's own catalogue (the upstream platform) names its code;
   * the client then sees that code, since the upstream meant exactly it.
   */
  readonly relayedCode?: ErrorCode | undefined;
  readonly cause?: unknown;
}

/**
 * An engine-caused failure, thrown by backends. The message is the whole explanation for a
 * client (the model, what the engine said, what an operator can do); it is capped when it becomes
 * an answer.
 */
export class EngineFailure extends Error {
  readonly kind: EngineFailureKind;
  /** The public model name the call was for. */
  readonly model: string;
  readonly engineStatus: number | undefined;
  readonly engineMessage: string | undefined;
  readonly answerStarted: boolean;
  readonly contentFilter: readonly ContentFilterVerdict[] | undefined;
  readonly relayedCode: ErrorCode | undefined;

  constructor(kind: EngineFailureKind, model: string, message: string, details: EngineFailureDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'EngineFailure';
    this.kind = kind;
    this.model = model;
    this.engineStatus = details.engineStatus;
    this.engineMessage = details.engineMessage;
    this.answerStarted = details.answerStarted ?? false;
    this.contentFilter = details.contentFilter;
    this.relayedCode = details.relayedCode;
  }

  /** The same failure, marked as coming after part of the answer went out (failover is then too late). */
  afterAnswerStarted(): EngineFailure {
    if (this.answerStarted) return this;
    const copy = new EngineFailure(this.kind, this.model, this.message, { ...this.#details(), answerStarted: true });
    if (this.stack !== undefined) copy.stack = this.stack;
    return copy;
  }

  #details(): EngineFailureDetails {
    return {
      engineStatus: this.engineStatus,
      engineMessage: this.engineMessage,
      contentFilter: this.contentFilter,
      relayedCode: this.relayedCode,
      cause: this.cause,
    };
  }
}

/** The platform code each kind is answered with (docs/wire.md §2.2). */
const codeOfKind = {
  unreachable: '1234',
  timeout: '1234',
  overloaded: '1305',
  unavailable: '1234',
  'engine-error': '500',
  'bad-answer': '500',
  'too-large': '1230',
  'context-too-long': '1261',
  'rejected-input': '1214',
  // The model cannot be used as configured: to the client it is offline, not at fault.
  misconfigured: '1221',
  'content-filtered': '1301',
  // A mid-answer break is a network failure to the client (a stream ends with network_error instead).
  interrupted: '1234',
} as const satisfies Record<EngineFailureKind, ErrorCode>;

/**
 * The one mapping from an engine's failure to what a client sees: code, status and the failure's
 * message without the engine's address (a refused connection names its host and port); the log
 * line of the failure keeps the whole message.
 */
export function apiErrorOf(failure: EngineFailure): ApiError {
  const code = failure.relayedCode ?? codeOfKind[failure.kind];
  // An empty message (an upstream code without one) takes the catalogue's words.
  return new ApiError(code, failure.message === '' ? undefined : publicReason(failure.message), {}, failure.contentFilter);
}

/** The platform error an error stands for: itself, an engine failure's mapping, or undefined for anything else (a bug). */
export function asApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof EngineFailure) return apiErrorOf(error);
  return undefined;
}
