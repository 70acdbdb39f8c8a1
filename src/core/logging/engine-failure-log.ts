import type { ModelEntry } from '../config/config.schema.ts';
import { ApiError } from '../errors/api-error.ts';
import { asApiError, EngineFailure } from '../errors/engine-failure.ts';
import type { Capability } from '../models/capability.ts';
import type { Logger } from './logger.ts';

/** Set on an error once its engine failure line is written, so nothing downstream logs it again. */
const loggedMark = Symbol('engine failure logged');

/** A message (with its causes) is cut to this many characters: an engine's error body may be long. */
const maxMessageLength = 1000;

/** How deep a chain of causes is followed (`fetch failed` ← `connect ECONNREFUSED …`). */
const maxCauses = 4;

/**
 * What names an engine in its failure lines: the model, the backend kind and the host of its
 * `baseUrl` (no path, query or credentials: those may carry keys), and the upstream model it
 * serves where the entry names one. Never an api key.
 */
export function engineBindings(model: string, entry: ModelEntry): Record<string, unknown> {
  const bindings: Record<string, unknown> = { model, backend: entry.backend };
  const host = hostOf(entry['baseUrl']);
  if (host !== undefined) bindings['engine_host'] = host;
  if (typeof entry['upstreamModel'] === 'string') bindings['upstream_model'] = entry['upstreamModel'];
  return bindings;
}

/**
 * One line for a failed engine call: at error when the platform or the engine is at fault (a
 * 5xx code, or anything not an ApiError: a broken connection, a bug), at warn when the engine
 * refused the request itself (a 4xx or 429 code). The line holds the error and the latency, never
 * the caller's content.
 */
export function logEngineFailure(logger: Logger, capability: Capability, error: unknown, seconds: number): void {
  const platformError = asApiError(error);
  const engineAtFault = platformError === undefined || platformError.status >= 500;
  logger[engineAtFault ? 'error' : 'warn']({ capability, duration_ms: Math.round(seconds * 1000), error: describeError(error) }, 'engine call failed');
  if (typeof error === 'object' && error !== null && Object.isExtensible(error)) Object.defineProperty(error, loggedMark, { value: true });
}

/** Whether the engine failure line of this error is written already (the error handler then adds none). */
export function engineFailureLogged(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { [loggedMark]?: boolean })[loggedMark] === true;
}

function describeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error, message: String(error).slice(0, maxMessageLength) };
  const code = asApiError(error)?.code ?? (error as { code?: unknown }).code;
  return {
    type: error.name,
    ...(typeof code === 'string' ? { code } : {}),
    ...(error instanceof EngineFailure ? engineFailureFields(error) : {}),
    message: messageWithCauses(error).slice(0, maxMessageLength),
    // A platform error explains itself; anything else may be a bug, where the stack says where.
    ...(error instanceof ApiError || error instanceof EngineFailure || error.stack === undefined ? {} : { stack: error.stack }),
  };
}

/** What the engine itself said, for the operator: the kind of failure and the engine's status. */
function engineFailureFields(failure: EngineFailure): Record<string, unknown> {
  return {
    kind: failure.kind,
    ...(failure.engineStatus === undefined ? {} : { engine_status: failure.engineStatus }),
    ...(failure.answerStarted ? { answer_started: true } : {}),
  };
}

function messageWithCauses(error: Error): string {
  let message = error.message;
  let cause: unknown = error.cause;
  for (let depth = 0; depth < maxCauses && cause instanceof Error; depth += 1) {
    if (!message.includes(cause.message)) message += `: ${cause.message}`;
    cause = cause.cause;
  }
  return message;
}

function hostOf(baseUrl: unknown): string | undefined {
  if (typeof baseUrl !== 'string') return undefined;
  try {
    return new URL(baseUrl).host;
  } catch {
    return undefined;
  }
}
