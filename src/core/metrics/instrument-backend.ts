import type { Backend } from '../backends/backend.ts';
import { asApiError } from '../errors/engine-failure.ts';
import { logEngineFailure } from '../logging/engine-failure-log.ts';
import type { Logger } from '../logging/logger.ts';
import { callEngine, hasEngineMethod, streamEngine, wrapBackend, type EngineMethodWrapper } from '../backends/wrap-backend.ts';
import type { Capability, EngineMethod, EngineRequest } from '../models/capability.ts';
import { WatchedParts } from '../streams/watched-parts.ts';
import { endEngineSpan, inEngineSpan, partsInEngineSpan, startEngineSpan, type EngineSpan, type EngineSpanTarget } from '../telemetry/engine-span.ts';
import { platformTracer } from '../telemetry/tracing.ts';

/** What the engine decorator reports: one duration per finished call, one error per failed one. */
export interface EngineCallObserver {
  /** `deployment`: which of the model's engines served the call (its name in the config). */
  engineCall(model: string, capability: Capability, seconds: number, deployment?: string): void;
  engineError(model: string, capability: Capability, code: string, deployment?: string): void;
}

/**
 * The backend with each capability it has timed: calls (and whole streams) report their
 * duration, failures their error code (the platform code a client sees, else the error's name) to `observer`,
 * and each failure is logged once to `logger` (engine-failure-log.ts; the logger carries the
 * engine's bindings). Every engine call passes here, so no backend logs its own failures. A call
 * its caller aborted (the client left, the task deadline passed) is neither timed, counted nor
 * logged as an engine failure. Capabilities the backend lacks stay absent, so "not available"
 * answers are unchanged. While tracing is on, each call is a span (engine-span.ts) naming the
 * model, the `deployment` that serves it and the `backendKind`.
 */
export function instrumentBackend(
  backend: Backend,
  model: string,
  observer: EngineCallObserver | undefined,
  logger?: Logger,
  deployment?: string,
  backendKind?: string,
): Backend {
  const instrumented: { -readonly [Key in keyof Backend]: Backend[Key] } = wrapBackend(
    new InstrumentedMethods(backend, model, observer, logger, { model, deployment, backend: backendKind }),
  );
  if (backend.takesMedia !== undefined) instrumented.takesMedia = backend.takesMedia;
  if (backend.close !== undefined) instrumented.close = () => backend.close?.() ?? Promise.resolve();
  return instrumented;
}

/** Every engine method of one deployment, timed, counted, logged on failure and traced. */
class InstrumentedMethods implements EngineMethodWrapper {
  readonly #backend: Backend;
  readonly #model: string;
  readonly #observer: EngineCallObserver | undefined;
  readonly #logger: Logger | undefined;
  readonly #target: EngineSpanTarget;

  constructor(backend: Backend, model: string, observer: EngineCallObserver | undefined, logger: Logger | undefined, target: EngineSpanTarget) {
    this.#backend = backend;
    this.#model = model;
    this.#observer = observer;
    this.#logger = logger;
    this.#target = target;
  }

  offers(method: EngineMethod): boolean {
    return hasEngineMethod(this.#backend, method);
  }

  call(method: EngineMethod, request: EngineRequest): Promise<unknown> {
    const { capability } = method;
    const started = performance.now();
    const engineSpan = startEngineSpan(capability, this.#target);
    // Without tracing (no span) the engine is called straight, with no closure to run it in a span.
    const answer =
      engineSpan === undefined ? callEngine(this.#backend, method, request) : inEngineSpan(engineSpan, () => callEngine(this.#backend, method, request));
    return answer.then(
      (result) => {
        this.#finished(capability, request.signal, started, engineSpan);
        return result;
      },
      (error: unknown) => {
        this.#finished(capability, request.signal, started, engineSpan, { thrown: error });
        throw error;
      },
    );
  }

  /** A stream is timed to its end; one cut short because the client left is not. */
  stream(method: EngineMethod, request: EngineRequest): AsyncIterable<unknown> {
    const parts = () => streamEngine(this.#backend, method, request);
    if (platformTracer() !== undefined) return this.#streamInSpan(method.capability, request.signal, parts);
    // Without tracing the stream is only watched: no layer per part (watched-parts.ts).
    const started = performance.now();
    return WatchedParts.of(parts(), (end) =>
      this.#finished(method.capability, request.signal, started, undefined, end.kind === 'failed' ? { thrown: end.error } : undefined),
    );
  }

  async *#streamInSpan(capability: Capability, signal: AbortSignal, parts: () => AsyncIterable<unknown>): AsyncGenerator<unknown> {
    const started = performance.now();
    const engineSpan = startEngineSpan(capability, this.#target);
    let failure: { thrown: unknown } | undefined;
    try {
      yield* partsInEngineSpan(engineSpan, parts);
    } catch (error) {
      failure = { thrown: error };
      throw error;
    } finally {
      this.#finished(capability, signal, started, engineSpan, failure);
    }
  }

  #finished(capability: Capability, signal: AbortSignal, started: number, engineSpan: EngineSpan | undefined, error?: { readonly thrown: unknown }): void {
    endEngineSpan(engineSpan, signal, error);
    if (signal.aborted) return;
    const seconds = (performance.now() - started) / 1000;
    const deployment = this.#target.deployment;
    this.#observer?.engineCall(this.#model, capability, seconds, deployment);
    if (error === undefined) return;
    this.#observer?.engineError(this.#model, capability, errorCode(error.thrown), deployment);
    // Inside the engine span, so the line names the span of the failed call.
    const logger = this.#logger;
    if (logger !== undefined) inEngineSpan(engineSpan, () => logEngineFailure(logger, capability, error.thrown, seconds));
  }
}

/** A bounded label: platform error codes, or the error class for anything else. */
function errorCode(error: unknown): string {
  const platformError = asApiError(error);
  if (platformError !== undefined) return platformError.code;
  if (error instanceof Error && /^[A-Za-z]{1,40}$/.test(error.name)) return error.name;
  return 'unknown';
}
