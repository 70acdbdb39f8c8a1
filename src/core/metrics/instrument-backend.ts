import type { Backend } from '../backends/backend.ts';
import { asApiError } from '../errors/engine-failure.ts';
import { logEngineFailure } from '../logging/engine-failure-log.ts';
import type { Logger } from '../logging/logger.ts';
import type { Capability } from '../models/capability.ts';
import { WatchedParts } from '../streams/watched-parts.ts';
import { endEngineSpan, inEngineSpan, partsInEngineSpan, startEngineSpan, type EngineSpan } from '../telemetry/engine-span.ts';
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
  const target = { model, deployment, backend: backendKind };
  const finished = (
    capability: Capability,
    signal: AbortSignal,
    started: number,
    engineSpan: EngineSpan | undefined,
    error?: { readonly thrown: unknown },
  ): void => {
    endEngineSpan(engineSpan, signal, error);
    if (signal.aborted) return;
    const seconds = (performance.now() - started) / 1000;
    observer?.engineCall(model, capability, seconds, deployment);
    if (error === undefined) return;
    observer?.engineError(model, capability, errorCode(error.thrown), deployment);
    // Inside the engine span, so the line names the span of the failed call.
    if (logger !== undefined) inEngineSpan(engineSpan, () => logEngineFailure(logger, capability, error.thrown, seconds));
  };
  const track = <Result>(capability: Capability, signal: AbortSignal, call: () => Promise<Result>): Promise<Result> => {
    const started = performance.now();
    const engineSpan = startEngineSpan(capability, target);
    return inEngineSpan(engineSpan, call).then(
      (result) => {
        finished(capability, signal, started, engineSpan);
        return result;
      },
      (error: unknown) => {
        finished(capability, signal, started, engineSpan, { thrown: error });
        throw error;
      },
    );
  };
  // A stream is timed to its end; one cut short because the client left is not.
  const trackStream = <Part>(capability: Capability, signal: AbortSignal, parts: () => AsyncIterable<Part>): AsyncIterable<Part> => {
    if (platformTracer() !== undefined) return trackStreamInSpan(capability, signal, parts);
    // Without tracing the stream is only watched: no layer per part (watched-parts.ts).
    const started = performance.now();
    return WatchedParts.of(parts(), (end) => finished(capability, signal, started, undefined, end.kind === 'failed' ? { thrown: end.error } : undefined));
  };
  async function* trackStreamInSpan<Part>(capability: Capability, signal: AbortSignal, parts: () => AsyncIterable<Part>): AsyncGenerator<Part> {
    const started = performance.now();
    const engineSpan = startEngineSpan(capability, target);
    let failure: { thrown: unknown } | undefined;
    try {
      yield* partsInEngineSpan(engineSpan, parts);
    } catch (error) {
      failure = { thrown: error };
      throw error;
    } finally {
      finished(capability, signal, started, engineSpan, failure);
    }
  }

  const { chat, tokenizer, search, image, video, transcribe, layout } = backend;
  const instrumented: { -readonly [Key in keyof Backend]: Backend[Key] } = {};
  if (chat !== undefined) {
    instrumented.chat = {
      generate: (request) => track('chat', request.signal, () => chat.generate(request)),
      stream: (request) => trackStream('chat', request.signal, () => chat.stream(request)),
    };
  }
  if (tokenizer !== undefined) {
    instrumented.tokenizer = { countPromptTokens: (request) => track('tokenize', request.signal, () => tokenizer.countPromptTokens(request)) };
  }
  if (search !== undefined) instrumented.search = { search: (query) => track('search', query.signal, () => search.search(query)) };
  if (image !== undefined) instrumented.image = { generate: (request) => track('image', request.signal, () => image.generate(request)) };
  if (video !== undefined) instrumented.video = { generate: (request) => track('video', request.signal, () => video.generate(request)) };
  if (layout !== undefined) instrumented.layout = { parse: (request) => track('layout', request.signal, () => layout.parse(request)) };
  if (transcribe !== undefined) {
    const streamTranscript = transcribe.stream?.bind(transcribe);
    instrumented.transcribe = {
      transcribe: (request) => track('transcribe', request.signal, () => transcribe.transcribe(request)),
      ...(streamTranscript === undefined ? {} : { stream: (request) => trackStream('transcribe', request.signal, () => streamTranscript(request)) }),
    };
  }
  if (backend.takesMedia !== undefined) instrumented.takesMedia = backend.takesMedia;
  if (backend.close !== undefined) instrumented.close = () => backend.close?.() ?? Promise.resolve();
  return instrumented;
}

/** A bounded label: platform error codes, or the error class for anything else. */
function errorCode(error: unknown): string {
  const platformError = asApiError(error);
  if (platformError !== undefined) return platformError.code;
  if (error instanceof Error && /^[A-Za-z]{1,40}$/.test(error.name)) return error.name;
  return 'unknown';
}
