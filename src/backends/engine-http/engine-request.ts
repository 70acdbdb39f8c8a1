import { EngineConnectionError, engineUnreachable } from '../../core/chat/engine-errors.ts';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import { AnswerOverCapError } from './answer-over-cap-error.ts';
import { engineDispatcher } from './engine-dispatcher.ts';
import { connectionDetail } from './connection-detail.ts';
import { SseDataReader } from './read-sse.ts';
import { FormData, Response } from 'undici';
import { EngineExchange } from './engine-exchange.ts';
import { abortReason } from '../../core/errors/abort-reason.ts';

/** Ten minutes: a long reasoning answer on a busy server takes minutes; a dead one is caught by connect errors. */
export const defaultEngineTimeoutMs = 600_000;

/** Most bytes of one engine answer read whole (and of any error body) unless the model's `maxResponseBytes` says otherwise. */
export const defaultMaxResponseBytes = 32 * 1024 * 1024;

/** Most bytes of one server-sent event of a streamed answer (or of what comes between two events). */
const maxStreamEventBytes = 8 * 1024 * 1024;

/** How to reach one configured engine over HTTP and how its error answers read to a client. */
export interface EngineConnection {
  /** The public model name, for error messages. */
  readonly modelName: string;
  readonly apiKey: string | undefined;
  /** Limit for one whole call, answer included. */
  readonly timeoutMs: number;
  /** Most bytes of an answer read whole and of an error body (default defaultMaxResponseBytes). */
  readonly maxResponseBytes?: number | undefined;
  /** What an engine's error answer (HTTP status and body text) means. */
  readonly httpError: (status: number, bodyText: string) => EngineFailure;
}

export interface EngineCall {
  readonly url: string;
  /** Sent as JSON, or as multipart/form-data when it is a FormData (undici writes the boundary). */
  readonly body: unknown;
  /** The client's signal: when it aborts, the engine's connection is closed. */
  readonly signal: AbortSignal;
  /** Replaces the connection's error mapping for this call (an endpoint with its own meaning for 404). */
  readonly httpError?: (status: number, bodyText: string) => EngineFailure;
  /** Shown the headers of a successful answer (what they say of the server behind the engine). */
  readonly onAnswerHeaders?: ((headers: AnswerHeaders) => void) | undefined;
}

/** An answer's headers, names in lower case. */
export type AnswerHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * POSTs JSON (or a FormData form) and returns the parsed JSON answer; every failure is an
 * EngineFailure (or the client's abort reason). Promise chains rather than async functions: every
 * sync chat call passes here.
 */
export function postJson(engine: EngineConnection, call: EngineCall): Promise<unknown> {
  if (call.body instanceof FormData) return encodeForm(call.body).then((form) => jsonAnswer(engine, call, 'POST', form));
  return jsonAnswer(engine, call, 'POST', undefined);
}

/** GETs a JSON answer (an asynchronous task's state) with the same caps, timeout and failures as postJson. */
export function getJson(engine: EngineConnection, call: Omit<EngineCall, 'body'>): Promise<unknown> {
  return jsonAnswer(engine, { ...call, body: undefined }, 'GET', undefined);
}

function jsonAnswer(engine: EngineConnection, call: EngineCall, method: 'POST' | 'GET', form: EncodedForm | undefined): Promise<unknown> {
  let exchange: EngineExchange;
  try {
    exchange = open(engine, call, method, 'application/json', 'whole', form);
  } catch (error) {
    return Promise.reject(error as Error);
  }
  return exchange.settled.then(
    (text) => {
      exchange.end();
      return parseAnswer(engine, text);
    },
    (error: unknown) => {
      exchange.end();
      throw failure(engine, exchange, call.signal, error, 'before-answer');
    },
  );
}

function parseAnswer(engine: EngineConnection, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // The engine's bytes are not quoted: a message is no place for whatever an engine sent.
    throw new EngineFailure(
      'bad-answer',
      engine.modelName,
      `The engine for model '${engine.modelName}' sent an answer that is not JSON (${Buffer.byteLength(text)} bytes).`,
    );
  }
}

/**
 * POSTs JSON and yields the data of each server-sent event of the answer. Failures before the
 * answer starts are EngineFailures; a connection that breaks while events are read is an
 * EngineConnectionError. Stopping the iteration early closes the engine's connection.
 */
export async function* postForEvents(engine: EngineConnection, call: EngineCall): AsyncGenerator<string> {
  const events = await openEvents(engine, call);
  try {
    for (let batch = await events.next(); batch !== undefined; batch = await events.next()) yield* batch;
  } finally {
    events.close();
  }
}

/**
 * POSTs JSON and resolves once the engine's 2xx answer began, with its server-sent events to read
 * in batches (postForEvents' failures). The caller must `close` it.
 */
export async function openEvents(engine: EngineConnection, call: EngineCall): Promise<EngineEvents> {
  const exchange = open(engine, call, 'POST', 'text/event-stream', 'streamed', call.body instanceof FormData ? await encodeForm(call.body) : undefined);
  try {
    await exchange.settled;
  } catch (error) {
    exchange.end();
    throw failure(engine, exchange, call.signal, error, 'before-answer');
  }
  return new EngineEvents(engine, exchange, call.signal);
}

/**
 * The events of one streamed answer, parsed as its bytes arrive: each `next` gives the data of
 * every event that came since the last one (one engine read often holds several), so a reader
 * waits once per read of the connection rather than once per event.
 */
export class EngineEvents {
  readonly #engine: EngineConnection;
  readonly #exchange: EngineExchange;
  readonly #signal: AbortSignal;
  readonly #reader: SseDataReader;
  /** A failure found after events that are handed out first. */
  #failed: Error | undefined;
  #ended = false;

  constructor(engine: EngineConnection, exchange: EngineExchange, signal: AbortSignal) {
    this.#engine = engine;
    this.#exchange = exchange;
    this.#signal = signal;
    this.#reader = new SseDataReader({ maxEventBytes: Math.min(maxStreamEventBytes, engine.maxResponseBytes ?? defaultMaxResponseBytes) });
  }

  /** The data of the events that arrived since the last call, in order (at least one), or undefined after the last. */
  async next(): Promise<readonly string[] | undefined> {
    for (;;) {
      if (this.#failed !== undefined) throw this.#failed;
      if (this.#ended) return undefined;
      const events: string[] = [];
      try {
        const chunks = await this.#exchange.nextChunks();
        if (chunks === undefined) {
          this.#ended = true;
          return this.#nonEmpty(this.#reader.end());
        }
        for (const chunk of chunks) {
          for (const data of this.#reader.read(chunk)) events.push(data);
          if (this.#reader.overCap) throw this.#reader.tooLarge();
        }
      } catch (error) {
        this.#failed = failure(this.#engine, this.#exchange, this.#signal, error, 'while-reading');
      }
      if (events.length > 0) return events;
    }
  }

  /** Done reading: closes the engine's connection when the answer was left before its end (client gone, consumer stopped). */
  close(): void {
    this.#exchange.end();
  }

  #nonEmpty(events: readonly string[]): readonly string[] | undefined {
    return events.length > 0 ? events : undefined;
  }
}

/** A multipart/form-data body as bytes, with its content-type (which names the boundary). */
interface EncodedForm {
  readonly bytes: Buffer;
  readonly contentType: string;
}

async function encodeForm(form: FormData): Promise<EncodedForm> {
  const encoded = new Response(form);
  return { bytes: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type') ?? 'multipart/form-data' };
}

function open(
  engine: EngineConnection,
  call: EngineCall,
  method: 'POST' | 'GET',
  accept: 'application/json' | 'text/event-stream',
  answer: 'whole' | 'streamed',
  form: EncodedForm | undefined,
): EngineExchange {
  if (call.signal.aborted) throw abortReason(call.signal);
  return new EngineExchange(engineDispatcher, {
    method,
    url: call.url,
    headers: form === undefined ? headerList(engine, method, accept) : headersOf(engine, accept, form.contentType),
    body: method === 'GET' ? undefined : form === undefined ? JSON.stringify(call.body) : form.bytes,
    signal: call.signal,
    timeoutMs: engine.timeoutMs,
    answer,
    maxResponseBytes: engine.maxResponseBytes ?? defaultMaxResponseBytes,
    errorAnswer: call.httpError === undefined ? partsOf(engine).errorAnswer : errorAnswerOf(engine, call.httpError),
    onAnswerHeaders: call.onAnswerHeaders,
  });
}

/**
 * What every call to one engine shares, made once per engine rather than per call: its header
 * lists for calls without a form, by what they ask for, and how its error answers read.
 */
interface EngineParts {
  readonly errorAnswer: (status: number, text: string) => EngineFailure;
  postJson?: readonly string[];
  postEvents?: readonly string[];
  getJson?: readonly string[];
}

const engineParts = new WeakMap<EngineConnection, EngineParts>();

function partsOf(engine: EngineConnection): EngineParts {
  let parts = engineParts.get(engine);
  if (parts === undefined) {
    parts = { errorAnswer: errorAnswerOf(engine, engine.httpError) };
    engineParts.set(engine, parts);
  }
  return parts;
}

/** An error answer's failure, its text cleared of the engine's credentials. */
function errorAnswerOf(engine: EngineConnection, httpError: (status: number, bodyText: string) => EngineFailure) {
  return (status: number, text: string) => httpError(status, redact(engine, text));
}

function headerList(engine: EngineConnection, method: 'POST' | 'GET', accept: 'application/json' | 'text/event-stream'): readonly string[] {
  const parts = partsOf(engine);
  if (method === 'GET') return (parts.getJson ??= headersOf(engine, accept, undefined));
  if (accept === 'text/event-stream') return (parts.postEvents ??= headersOf(engine, accept, 'application/json'));
  return (parts.postJson ??= headersOf(engine, accept, 'application/json'));
}

/** Accept, the body's Content-Type (none for a GET) and the engine's credentials, as undici takes headers. */
function headersOf(engine: EngineConnection, accept: string, contentType: string | undefined): readonly string[] {
  const headers = ['accept', accept];
  if (contentType !== undefined) headers.push('content-type', contentType);
  if (engine.apiKey !== undefined) headers.push('authorization', `Bearer ${engine.apiKey}`);
  return headers;
}

/** What a failed request or read means for the client. */
function failure(engine: EngineConnection, exchange: EngineExchange, signal: AbortSignal, error: unknown, phase: 'before-answer' | 'while-reading'): Error {
  if (signal.aborted) return abortReason(signal);
  if (error instanceof EngineFailure) return error;
  if (error instanceof AnswerOverCapError) return answerOverCap(engine.modelName, error);
  const detail = exchange.timedOut ? `no complete answer within ${engine.timeoutMs} ms (timeoutMs)` : redact(engine, connectionDetail(error));
  if (phase === 'before-answer') return engineUnreachable(engine.modelName, detail, exchange.timedOut ? 'timeout' : 'unreachable', error);
  return new EngineConnectionError(`The connection to the engine for model '${engine.modelName}' broke: ${detail}.`, { cause: error });
}

/** An engine that sends more than a cap allows fails the call it answers, and only that one. */
export function answerOverCap(model: string, error: AnswerOverCapError): EngineFailure {
  return new EngineFailure('too-large', model, `The engine for model '${model}' sent more than the platform accepts: ${error.message}; the call was stopped.`);
}

/** Engines do not echo credentials, but a message is never the place for the apiKey, so make sure. */
function redact(engine: EngineConnection, text: string): string {
  const key = engine.apiKey;
  return key === undefined || key === '' ? text : text.split(key).join('***');
}
