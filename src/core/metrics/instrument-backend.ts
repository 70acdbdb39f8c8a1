import type { Backend } from '../engines/backend.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Capability } from '../models/capability.ts';

/** What the engine decorator reports: one duration per finished call, one error per failed one. */
export interface EngineCallObserver {
  engineCall(model: string, capability: Capability, seconds: number): void;
  engineError(model: string, capability: Capability, code: string): void;
}

/**
 * The backend with each capability it has timed: calls (and whole streams) report their
 * duration, failures their error code (the ApiError code, else the error's name). A call its
 * caller aborted (the client left, the task deadline passed) is neither timed nor an engine error.
 * Capabilities the backend lacks stay absent, so "not available" answers are unchanged.
 */
export function instrumentBackend(backend: Backend, model: string, observer: EngineCallObserver): Backend {
  const track = <Result>(capability: Capability, signal: AbortSignal, call: () => Promise<Result>): Promise<Result> => {
    const started = performance.now();
    return call().then(
      (result) => {
        observer.engineCall(model, capability, (performance.now() - started) / 1000);
        return result;
      },
      (error: unknown) => {
        if (!signal.aborted) {
          observer.engineCall(model, capability, (performance.now() - started) / 1000);
          observer.engineError(model, capability, errorCode(error));
        }
        throw error;
      },
    );
  };

  const { chat, tokenizer, search, image, video, transcribe, layout } = backend;
  const instrumented: { -readonly [Key in keyof Backend]: Backend[Key] } = {};
  if (chat !== undefined) {
    instrumented.chat = {
      generate: (request) => track('chat', request.signal, () => chat.generate(request)),
      async *stream(request) {
        const started = performance.now();
        try {
          yield* chat.stream(request);
        } catch (error) {
          if (!request.signal.aborted) observer.engineError(model, 'chat', errorCode(error));
          throw error;
        } finally {
          // A stream is timed to its end; one cut short because the client left is not.
          if (!request.signal.aborted) observer.engineCall(model, 'chat', (performance.now() - started) / 1000);
        }
      },
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
      ...(streamTranscript === undefined
        ? {}
        : {
            async *stream(request) {
              const started = performance.now();
              try {
                yield* streamTranscript(request);
              } catch (error) {
                if (!request.signal.aborted) observer.engineError(model, 'transcribe', errorCode(error));
                throw error;
              } finally {
                if (!request.signal.aborted) observer.engineCall(model, 'transcribe', (performance.now() - started) / 1000);
              }
            },
          }),
    };
  }
  if (backend.close !== undefined) instrumented.close = () => backend.close?.() ?? Promise.resolve();
  return instrumented;
}

/** A bounded label: platform error codes, or the error class for anything else. */
function errorCode(error: unknown): string {
  if (error instanceof ApiError) return error.code;
  if (error instanceof Error && /^[A-Za-z]{1,40}$/.test(error.name)) return error.name;
  return 'unknown';
}
