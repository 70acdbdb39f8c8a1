import { engineUnreachable, EngineConnectionError } from '../../core/chat/engine-errors.ts';
import { ApiError } from '../../core/errors/api-error.ts';
import { readSseData } from '../../core/http/read-sse.ts';

/** How to reach one configured engine over HTTP and how its error answers read to a client. */
export interface EngineConnection {
  /** The public model name, for error messages. */
  readonly modelName: string;
  readonly apiKey: string | undefined;
  /** Limit for one whole call, answer included. */
  readonly timeoutMs: number;
  /** The client's error for an engine's error answer (HTTP status and body text). */
  readonly httpError: (status: number, bodyText: string) => ApiError;
}

export interface EngineCall {
  readonly url: string;
  readonly body: unknown;
  /** The client's signal: when it aborts, the engine's connection is closed. */
  readonly signal: AbortSignal;
  /** Replaces the connection's error mapping for this call (an endpoint with its own meaning for 404). */
  readonly httpError?: (status: number, bodyText: string) => ApiError;
}

/** POSTs JSON and returns the parsed JSON answer; every failure is an ApiError (or the client's abort reason). */
export async function postJson(engine: EngineConnection, call: EngineCall): Promise<unknown> {
  const scope = new CallScope(engine, call.signal);
  try {
    const response = await scope.open(call, 'application/json');
    const text = await response.text().catch((error: unknown) => {
      throw scope.failure(error, 'before-answer');
    });
    try {
      return JSON.parse(text);
    } catch {
      throw new ApiError('500', `The engine for model '${engine.modelName}' sent an answer that is not JSON: ${scope.redact(text.slice(0, 200))}`);
    }
  } finally {
    scope.end();
  }
}

/**
 * POSTs JSON and yields the data of each server-sent event of the answer. Failures before the
 * answer starts are ApiErrors; a connection that breaks while events are read is an
 * EngineConnectionError. Stopping the iteration early closes the engine's connection.
 */
export async function* postForEvents(engine: EngineConnection, call: EngineCall): AsyncGenerator<string> {
  const scope = new CallScope(engine, call.signal);
  try {
    const response = await scope.open(call, 'text/event-stream');
    if (response.body === null) return;
    try {
      for await (const data of readSseData(response.body)) yield data;
    } catch (error) {
      throw scope.failure(error, 'while-reading');
    }
  } finally {
    // Closes the socket when the stream was left before its end (client gone, consumer stopped).
    scope.end();
  }
}

/** The signals of one call: the client's, the configured timeout, and our own to close the connection. */
class CallScope {
  readonly #engine: EngineConnection;
  readonly #clientSignal: AbortSignal;
  readonly #timeout: AbortSignal;
  readonly #own = new AbortController();
  readonly #signal: AbortSignal;

  constructor(engine: EngineConnection, clientSignal: AbortSignal) {
    this.#engine = engine;
    this.#clientSignal = clientSignal;
    this.#timeout = AbortSignal.timeout(engine.timeoutMs);
    this.#signal = AbortSignal.any([clientSignal, this.#timeout, this.#own.signal]);
  }

  async open(call: EngineCall, accept: string): Promise<Response> {
    if (this.#clientSignal.aborted) throw abortReason(this.#clientSignal);
    const headers: Record<string, string> = { 'content-type': 'application/json', accept };
    if (this.#engine.apiKey !== undefined) headers['authorization'] = `Bearer ${this.#engine.apiKey}`;
    let response: Response;
    try {
      response = await fetch(call.url, { method: 'POST', headers, body: JSON.stringify(call.body), signal: this.#signal });
    } catch (error) {
      throw this.failure(error, 'before-answer');
    }
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      const httpError = call.httpError ?? this.#engine.httpError;
      throw httpError(response.status, this.redact(text));
    }
    return response;
  }

  /** What a failed fetch or read means for the client. */
  failure(error: unknown, phase: 'before-answer' | 'while-reading'): Error {
    if (this.#clientSignal.aborted) return abortReason(this.#clientSignal);
    if (error instanceof ApiError) return error;
    const detail = this.#timeout.aborted
      ? `no complete answer within ${this.#engine.timeoutMs} ms (timeoutMs)`
      : this.redact(connectionDetail(error));
    if (phase === 'before-answer') return engineUnreachable(this.#engine.modelName, detail);
    return new EngineConnectionError(`The connection to the engine for model '${this.#engine.modelName}' broke: ${detail}.`, { cause: error });
  }

  /** Engines do not echo credentials, but a message is never the place for the apiKey, so make sure. */
  redact(text: string): string {
    const key = this.#engine.apiKey;
    return key === undefined || key === '' ? text : text.split(key).join('***');
  }

  end(): void {
    this.#own.abort();
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The request was aborted.', 'AbortError');
}

/** The innermost cause of a fetch failure says what happened (ECONNREFUSED, ENOTFOUND, "other side closed"). */
function connectionDetail(error: unknown): string {
  let current: unknown = error;
  let detail = 'unknown error';
  while (current instanceof Error) {
    const code = (current as { code?: unknown }).code;
    const message = current.message !== '' ? current.message : typeof code === 'string' ? code : detail;
    detail = typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
    const nested = current instanceof AggregateError ? current.errors[0] : undefined;
    current = current.cause ?? nested;
  }
  return detail;
}
