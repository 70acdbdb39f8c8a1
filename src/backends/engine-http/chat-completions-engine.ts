import type { ChatModel } from '../../core/chat/chat-model.ts';
import type { ChatPartBatch, ChatStreamPart } from '../../core/chat/chat-stream-part.ts';
import type { ChatRequest, ChatResult } from '../../core/chat/chat-types.ts';
import { ChatAnswerCollector } from '../../core/chat/collect-chat-stream.ts';
import { EngineConnectionError, engineUnreachable } from '../../core/chat/engine-errors.ts';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import { ChatChunkReader } from './chat-chunk-reader.ts';
import { readChatCompletion } from './chat-completion-reader.ts';
import { AnswerOverCapError } from './answer-over-cap-error.ts';
import { answerOverCap, openEvents, postJson, type AnswerHeaders, type EngineConnection } from './engine-request.ts';
import { asRecord, type WireRecord } from './wire-reading.ts';

/**
 * Most stream events in a row that add nothing to the answer (no text, reasoning or tool call): an
 * engine that sends only empty chunks would otherwise hold the call, and a slot, until timeoutMs.
 */
export const maxEventsWithoutProgress = 10_000;

/** Builds the engine's body for a request; `stream` says which kind of answer is asked for. */
export type ChatBodyBuilder = (request: ChatRequest, stream: boolean) => Record<string, unknown>;

/**
 * Whether a whole answer is asked for as a stream and put together here: yes for llama.cpp's
 * server, which reliably notices that a client left only while it streams (for a non-streamed
 * call it checks the connection only when a one-second wait for results passes without any
 * task's result, so on a busy server it keeps decoding, holding its slot, after the platform
 * closed the connection); no for servers that stop on a closed connection either way. `learn`
 * starts with whole answers and switches once an answer's `Server` header names llama.cpp.
 */
export type SyncAnswers = 'streamed' | 'whole' | 'learn';

/**
 * A ChatModel over any `/chat/completions` endpoint that answers in the OpenAI shape (with
 * `reasoning_content`): self-hosted inference servers and the upstream platform alike. What
 * differs between them is the body and the meaning of error answers, both given here.
 */
export class ChatCompletionsEngine implements ChatModel {
  readonly #engine: EngineConnection;
  readonly #url: string;
  readonly #buildBody: ChatBodyBuilder;
  #syncAnswers: SyncAnswers;

  constructor(engine: EngineConnection, url: string, buildBody: ChatBodyBuilder, syncAnswers: SyncAnswers = 'whole') {
    this.#engine = engine;
    this.#url = url;
    this.#buildBody = buildBody;
    this.#syncAnswers = syncAnswers;
  }

  /** A promise chain rather than an async function, with its steps made once per engine: every sync call passes here. */
  generate(request: ChatRequest): Promise<ChatResult> {
    if (this.#syncAnswers === 'streamed') return this.#generateFromStream(request);
    let body: Record<string, unknown>;
    try {
      body = this.#buildBody(request, false);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    const onAnswerHeaders = this.#syncAnswers === 'learn' ? this.#learnFrom : undefined;
    return postJson(this.#engine, { url: this.#url, body, signal: request.signal, onAnswerHeaders }).then(this.#readAnswer);
  }

  readonly #readAnswer = (answer: unknown): ChatResult => {
    const error = inBandError(answer);
    if (error !== undefined) throw this.#inBandError(error);
    return readChatCompletion(answer, this.#engine.modelName);
  };

  readonly #learnFrom = (headers: AnswerHeaders): void => this.#learn(headers);

  async #generateFromStream(request: ChatRequest): Promise<ChatResult> {
    try {
      const answer = new ChatAnswerCollector();
      for await (const parts of this.#partBatches(request)) for (const part of parts) answer.add(part);
      return answer.result();
    } catch (error) {
      // Nothing reached the client yet: a connection that broke mid-answer is an engine failure like any other.
      if (error instanceof EngineConnectionError) throw new EngineFailure('interrupted', this.#engine.modelName, error.message, { cause: error });
      throw error;
    }
  }

  #learn(headers: AnswerHeaders): void {
    const server = headers['server'];
    if (typeof server === 'string' && /^llama\.cpp\b/i.test(server)) this.#syncAnswers = 'streamed';
  }

  stream(request: ChatRequest): AsyncGenerator<ChatPartBatch> {
    return this.#partBatches(request);
  }

  /**
   * The parts of the engine's streamed answer, those of each read of its connection together (one
   * read often holds several events): the stream and the whole answer put together from it wait
   * once per read rather than once per part.
   */
  async *#partBatches(request: ChatRequest): AsyncGenerator<ChatStreamPart[]> {
    const body = this.#buildBody(request, true);
    const reader = new ChatChunkReader();
    let sentParts = false;
    let sawDone = false;
    let eventsWithoutProgress = 0;
    try {
      const events = await openEvents(this.#engine, { url: this.#url, body, signal: request.signal });
      try {
        for (let batch = await events.next(); batch !== undefined && !sawDone; batch = await events.next()) {
          const parts: ChatStreamPart[] = [];
          try {
            for (const data of batch) {
              if (data.trim() === '[DONE]') {
                sawDone = true;
                break;
              }
              const chunk = this.#parseChunk(data);
              const error = inBandError(chunk);
              if (error !== undefined) throw this.#inBandError(error);
              const before = parts.length;
              reader.readInto(chunk, parts);
              if (parts.length > before) {
                eventsWithoutProgress = 0;
                continue;
              }
              eventsWithoutProgress += 1;
              if (eventsWithoutProgress > maxEventsWithoutProgress) {
                throw answerOverCap(
                  this.#engine.modelName,
                  new AnswerOverCapError('the run of stream events without content', maxEventsWithoutProgress, 'events'),
                );
              }
            }
          } catch (error) {
            // The parts of the events before the failing one go out first, as they would one event at a time.
            if (parts.length > 0) {
              sentParts = true;
              yield parts;
            }
            throw error;
          }
          if (parts.length === 0) continue;
          sentParts = true;
          yield parts;
        }
      } finally {
        // Closes the connection of an answer left before its end (the client left, or [DONE] came before the end of the body).
        events.close();
      }
      if (!sawDone && !reader.finished) {
        throw new EngineConnectionError(`The engine for model '${this.#engine.modelName}' ended its stream before saying why it finished.`);
      }
    } catch (error) {
      // Before the first part the client can still get a status: the engine could not be used at all.
      if (!sentParts && error instanceof EngineConnectionError) throw engineUnreachable(this.#engine.modelName, error.message);
      // After it, the answer ends with network_error and what was delivered is billed: the engine's own count if it sent one.
      if (error instanceof EngineConnectionError) throw error.withUsage(reader.usageSoFar);
      // Any other failure after the first part is too late for another engine to take the call over.
      if (sentParts && error instanceof EngineFailure) throw error.afterAnswerStarted();
      throw error;
    }
    yield reader.end();
  }

  #parseChunk(data: string): WireRecord {
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      // The event is not quoted: a message is no place for whatever an engine sent.
      throw new EngineConnectionError(`The engine for model '${this.#engine.modelName}' sent a stream event that is not JSON (${data.length} characters).`);
    }
    return asRecord(parsed) ?? {};
  }

  /** An error the engine sent with HTTP 200 (in a stream, after it had started): mapped like an error answer. */
  #inBandError(error: { status: number; text: string }) {
    return this.#engine.httpError(error.status, error.text);
  }
}

/**
 * vLLM sends `{"object":"error",…}` or `{"error":{…}}` inside a stream when generation fails after
 * the answer started; the upstream platform sends `{"error":{"code","message"}}`.
 */
function inBandError(answer: unknown): { status: number; text: string } | undefined {
  const record = asRecord(answer);
  if (record === undefined || record['choices'] !== undefined) return undefined;
  if (record['error'] === undefined && record['object'] !== 'error') return undefined;
  const code = asRecord(record['error'])?.['code'] ?? record['code'];
  const status = typeof code === 'number' && code >= 400 && code < 600 ? code : 500;
  return { status, text: JSON.stringify(record) };
}
