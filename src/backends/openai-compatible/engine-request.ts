import { engineUnreachable, EngineConnectionError } from '../../core/chat/engine-errors.ts';
import { ApiError } from '../../core/errors/api-error.ts';
import { readSseData } from '../../core/http/read-sse.ts';
import { Agent, FormData, request, type Dispatcher } from 'undici';

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
  /** Sent as JSON, or as multipart/form-data when it is a FormData (undici writes the boundary). */
  readonly body: unknown;
  /** The client's signal: when it aborts, the engine's connection is closed. */
  readonly signal: AbortSignal;
  /** Replaces the connection's error mapping for this call (an endpoint with its own meaning for 404). */
  readonly httpError?: (status: number, bodyText: string) => ApiError;
}

/** One connection pool for every engine call: keep-alive sockets, no per-call set-up (undici). */
const dispatcher = new Agent({ keepAliveTimeout: 60_000, connections: 256 });

/** POSTs JSON (or a FormData form) and returns the parsed JSON answer; every failure is an ApiError (or the client's abort reason). */
export async function postJson(engine: EngineConnection, call: EngineCall): Promise<unknown> {
  const scope = new CallScope(engine, call.signal);
  try {
    const body = await scope.open(call, 'application/json');
    const text = await body.text().catch((error: unknown) => {
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
    const body = await scope.open(call, 'text/event-stream');
    try {
      for await (const data of readSseData(body)) yield data;
    } catch (error) {
      throw scope.failure(error, 'while-reading');
    }
  } finally {
    // Closes the socket when the stream was left before its end (client gone, consumer stopped).
    scope.end();
  }
}

/**
 * The life of one call: the client's signal and the configured timeout both abort it, through one
 * controller (no AbortSignal.any or AbortSignal.timeout per call: both cost on the hot path).
 */
class CallScope {
  readonly #engine: EngineConnection;
  readonly #clientSignal: AbortSignal;
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  readonly #onClientAbort = () => this.#controller.abort(this.#clientSignal.reason);
  #timedOut = false;
  #body: Dispatcher.ResponseData['body'] | undefined;

  constructor(engine: EngineConnection, clientSignal: AbortSignal) {
    this.#engine = engine;
    this.#clientSignal = clientSignal;
    clientSignal.addEventListener('abort', this.#onClientAbort, { once: true });
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.#controller.abort(new Error('timeout'));
    }, engine.timeoutMs);
  }

  async open(call: EngineCall, accept: string): Promise<Dispatcher.ResponseData['body']> {
    if (this.#clientSignal.aborted) throw abortReason(this.#clientSignal);
    const form = call.body instanceof FormData ? call.body : undefined;
    const headers: Record<string, string> = form === undefined ? { 'content-type': 'application/json', accept } : { accept };
    if (this.#engine.apiKey !== undefined) headers['authorization'] = `Bearer ${this.#engine.apiKey}`;
    let response: Dispatcher.ResponseData;
    try {
      const body = form ?? JSON.stringify(call.body);
      response = await request(call.url, { method: 'POST', headers, body, signal: this.#controller.signal, dispatcher });
    } catch (error) {
      throw this.failure(error, 'before-answer');
    }
    this.#body = response.body;
    if (response.statusCode < 200 || response.statusCode > 299) {
      const text = await response.body.text().catch(() => '');
      const httpError = call.httpError ?? this.#engine.httpError;
      throw httpError(response.statusCode, this.redact(text));
    }
    return response.body;
  }

  /** What a failed request or read means for the client. */
  failure(error: unknown, phase: 'before-answer' | 'while-reading'): Error {
    if (this.#clientSignal.aborted) return abortReason(this.#clientSignal);
    if (error instanceof ApiError) return error;
    const detail = this.#timedOut
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
    clearTimeout(this.#timer);
    this.#clientSignal.removeEventListener('abort', this.#onClientAbort);
    // An answer left unread would hold its socket: close it.
    if (this.#body !== undefined && !this.#body.readableEnded) this.#body.destroy();
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The request was aborted.', 'AbortError');
}

/** The innermost cause of a request failure says what happened (ECONNREFUSED, ENOTFOUND, "other side closed"). */
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
