import type { Client, Dispatcher } from 'undici';
import { LRUCache } from 'lru-cache';
import type { EngineFailure } from '../../core/errors/engine-failure.ts';
import { AnswerOverCapError } from './answer-over-cap-error.ts';
import { freshConnection } from './engine-dispatcher.ts';

export interface ExchangeOptions {
  /** POST for calls; GET for polling a task's result. */
  readonly method: 'POST' | 'GET';
  readonly url: string;
  /**
   * Names and values in turn (`[name, value, name, value…]`), sent as given; undici adds Host and
   * Content-Length and refuses unsafe values. A list rather than a record: an engine's lists are
   * made once and shared by its calls (undici only reads them), and nothing inherited can slip in.
   */
  readonly headers: readonly string[];
  /** JSON text, or an encoded form (its content-type is in `headers`); none for a GET. */
  readonly body: string | Buffer | undefined;
  /** The client's signal: when it aborts, so does the exchange (its reason is the failure). */
  readonly signal: AbortSignal;
  /** Limit for the whole exchange, answer included; also undici's headers and body idle timeouts. */
  readonly timeoutMs: number;
  /** `whole`: the answer is collected (text); `streamed`: it is read as it comes (chunks). */
  readonly answer: 'whole' | 'streamed';
  /** Most bytes of a whole answer, and of any error answer's body. */
  readonly maxResponseBytes: number;
  /** The failure for an answer with a status outside 2xx, given its body text. */
  readonly errorAnswer: (status: number, text: string) => EngineFailure;
  /** Shown the headers of a 2xx answer when they arrive. */
  readonly onAnswerHeaders?: ((headers: Readonly<Record<string, string | string[] | undefined>>) => void) | undefined;
}

/** Chunks of a streamed answer waiting for their reader beyond this pause the connection. */
const maxQueuedChunks = 16;

/** How a connection the engine closed shows when a request is written on it, or just after. */
const droppedConnectionCodes: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);
const timeoutCodes: ReadonlySet<string> = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/** The exchange's listener on the client's signal: told once (and removed when the exchange ends). */
const onceOnly = { once: true } as const;

/** The exchange's own promise is read later (or never, for a streamed answer): its failure is not unhandled. */
function ignoreRejection(): void {}

/**
 * One request to an engine (a POST, or a GET that polls a task) through undici (`dispatch` with a
 * handler: no Readable, no AbortSignal per call); the exchange is that handler itself, so a call
 * makes no closures for it. The client's signal and the timeout abort the request; the answer is
 * collected up to `maxResponseBytes` (or queued for a streamed read, the connection paused while
 * the reader is behind). A request that fails before any byte of its answer because the engine
 * had closed the connection (a keep-alive connection reused as the engine closed it) is sent once
 * more on a new connection of its own; nothing is sent again once an answer began.
 */
export class EngineExchange implements Dispatcher.DispatchHandler {
  /** Whole: settles with the answer's text at its end. Streamed: with '' once a 2xx status arrived. */
  readonly settled: Promise<string>;
  readonly #options: ExchangeOptions;
  readonly #target: Target;
  readonly #timer: NodeJS.Timeout;
  readonly #onClientAbort = () => this.#cancel(this.#options.signal.reason);
  #resolve!: (text: string) => void;
  #reject!: (error: unknown) => void;
  /** The dispatch under way, the first or the retry: its controller once undici starts it, and whether an answer began. */
  #controller: Dispatcher.DispatchController | undefined;
  #responded = false;
  #retryConnection: Client | undefined;
  #timedOut = false;
  #status = 0;
  #paused = false;
  /** A streamed answer's chunks, queued for the reader. */
  #chunks: Buffer[] = [];
  /** A whole answer's (or an error answer's) chunks, collected: made with the first (most answers come in one). */
  #collected: Buffer[] | undefined;
  #collectedBytes = 0;
  #ended = false;
  #failedWith: unknown;
  #wakeReader: (() => void) | undefined;

  constructor(dispatcher: Dispatcher, options: ExchangeOptions) {
    this.#options = options;
    this.settled = new Promise<string>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // A failure nobody awaits yet (the reader is between events) is read from #failedWith instead.
    this.settled.catch(ignoreRejection);
    this.#target = targetOf(options.url);
    options.signal.addEventListener('abort', this.#onClientAbort, onceOnly);
    this.#timer = setTimeout(EngineExchange.#timeOut, options.timeoutMs, this);
    this.#dispatch(dispatcher);
  }

  /** Whether the configured timeout ended the exchange. */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** The configured timeout passed: one function given the exchange, not a closure per exchange. */
  static #timeOut(exchange: EngineExchange): void {
    exchange.#timedOut = true;
    exchange.#cancel(new Error('timeout'));
  }

  /**
   * The streamed answer's bytes that arrived since the last call, in order (at least one chunk;
   * waits for one), or undefined at the answer's end; throws what broke the connection. Taking the
   * queued chunks resumes a connection paused for the reader.
   */
  async nextChunks(): Promise<Buffer[] | undefined> {
    while (this.#chunks.length === 0) {
      if (this.#failedWith !== undefined) throw this.#failedWith;
      if (this.#ended) return undefined;
      await new Promise<void>((resolve) => (this.#wakeReader = resolve));
    }
    const chunks = this.#chunks;
    this.#chunks = [];
    if (this.#paused) {
      this.#paused = false;
      this.#controller?.resume();
    }
    return chunks;
  }

  /** Done with the exchange: its timer and listener go; an answer left unread is cut off (its connection closed). */
  end(): void {
    clearTimeout(this.#timer);
    this.#options.signal.removeEventListener('abort', this.#onClientAbort);
    if (!this.#ended && this.#failedWith === undefined) this.#cancel(new Error('the answer was left unread'));
    // The retry's own connection served its one request.
    this.#retryConnection?.destroy().catch(() => undefined);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    // Cancelled while it waited for a connection: undici learns it only now.
    if (this.#failedWith !== undefined) controller.abort(this.#failedWith instanceof Error ? this.#failedWith : new Error('aborted'));
  }

  onResponseStart(controller: Dispatcher.DispatchController, status: number, headers: Record<string, string | string[] | undefined>): void {
    if (status < 200) return;
    this.#responded = true;
    this.#onHead(controller, status, headers);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#onBody(controller, chunk);
  }

  onResponseEnd(): void {
    this.#onEnd();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#onError(error);
  }

  /** Dispatches the request (again, for the retry: undici is done with the first dispatch once it reported its error). */
  #dispatch(dispatcher: Dispatcher): void {
    this.#controller = undefined;
    this.#responded = false;
    const options: Dispatcher.DispatchOptions = {
      origin: this.#target.origin,
      path: this.#target.path,
      method: this.#options.method,
      headers: this.#options.headers as string[],
      body: this.#options.body ?? null,
      headersTimeout: this.#options.timeoutMs,
      bodyTimeout: this.#options.timeoutMs,
    };
    try {
      dispatcher.dispatch(options, this);
    } catch (error) {
      this.#onError(error);
    }
  }

  #onHead(controller: Dispatcher.DispatchController, status: number, headers: Record<string, string | string[] | undefined>): void {
    this.#status = status;
    const collected = this.#options.answer === 'whole' || !this.#answerIsOk();
    const declared = Number(headers['content-length']);
    if (collected && Number.isFinite(declared) && declared > this.#options.maxResponseBytes) {
      controller.abort(this.#overCap());
      return;
    }
    if (this.#answerIsOk()) this.#options.onAnswerHeaders?.(headers);
    if (!collected) this.#resolve('');
  }

  #onBody(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#failedWith !== undefined) return;
    if (this.#options.answer === 'streamed' && this.#answerIsOk()) {
      this.#chunks.push(chunk);
      this.#wake();
      if (!this.#paused && this.#chunks.length >= maxQueuedChunks) {
        this.#paused = true;
        controller.pause();
      }
      return;
    }
    this.#collectedBytes += chunk.length;
    if (this.#collectedBytes > this.#options.maxResponseBytes) {
      this.#collected = undefined;
      controller.abort(this.#overCap());
      return;
    }
    if (this.#collected === undefined) this.#collected = [chunk];
    else this.#collected.push(chunk);
  }

  #onEnd(): void {
    if (this.#failedWith !== undefined) return;
    this.#ended = true;
    clearTimeout(this.#timer);
    if (!this.#answerIsOk()) {
      this.#reject(this.#options.errorAnswer(this.#status, this.#text()));
    } else if (this.#options.answer === 'whole') {
      this.#resolve(this.#text());
    }
    this.#wake();
  }

  #onError(error: unknown): void {
    if (this.#failedWith !== undefined || this.#ended) return;
    if (this.#retryConnection === undefined && !this.#responded && closedBeforeAnswer(error)) {
      this.#retryConnection = freshConnection(this.#target.origin);
      this.#dispatch(this.#retryConnection);
      return;
    }
    if (timeoutCodes.has(codeOf(error) ?? '')) this.#timedOut = true;
    this.#fail(error);
  }

  /** Ends the exchange with `error`; a streamed answer's chunks already received are still read first, unless `discard`. */
  #fail(error: unknown, discard = false): void {
    clearTimeout(this.#timer);
    this.#failedWith = error;
    this.#collected = undefined;
    if (discard || this.#options.answer === 'whole' || !this.#answerIsOk()) this.#chunks = [];
    this.#reject(error);
    this.#wake();
  }

  #answerIsOk(): boolean {
    return this.#status >= 200 && this.#status <= 299;
  }

  #overCap(): AnswerOverCapError {
    const what = this.#answerIsOk() ? 'the answer body' : `the error answer's body (HTTP ${this.#status})`;
    return new AnswerOverCapError(what, this.#options.maxResponseBytes, 'bytes', 'maxResponseBytes');
  }

  #text(): string {
    const chunks = this.#collected;
    this.#collected = undefined;
    if (chunks === undefined) return '';
    return (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8');
  }

  /** Ends the exchange with `reason` now; undici closes the request's connection (at once, or when it gets one). */
  #cancel(reason: unknown): void {
    if (this.#ended || this.#failedWith !== undefined) return;
    const error = reason instanceof Error ? reason : new Error('aborted');
    this.#fail(error, true);
    this.#controller?.abort(error);
  }

  #wake(): void {
    const wake = this.#wakeReader;
    this.#wakeReader = undefined;
    wake?.();
  }
}

/**
 * Whether a request failed because the engine had closed its connection before any byte of an
 * answer: the request never reached the engine's application, so sending it again is safe. A
 * connection that was new (it had read nothing) and closed is the engine refusing the request
 * itself, and is not retried; resets and broken pipes carry no such count and are retried.
 */
function closedBeforeAnswer(error: unknown): boolean {
  const code = codeOf(error);
  if (code === undefined || !droppedConnectionCodes.has(code)) return false;
  const bytesRead = (error as { socket?: { bytesRead?: unknown } }).socket?.bytesRead;
  return !(typeof bytesRead === 'number' && bytesRead === 0);
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

interface Target {
  readonly origin: string;
  readonly path: string;
}

/**
 * Engine URLs repeat (one per configured endpoint): each is parsed once. URLs with ids in them
 * (task polling) would grow a plain map without end, so the least recently used go past the bound.
 */
const parsedUrls = new LRUCache<string, Target>({ max: 1_000 });

/** lru-cache's `get` makes an empty options object for a call that gives none. */
const cacheDefaults: LRUCache.GetOptions<string, Target, unknown> = Object.freeze({});

function targetOf(url: string): Target {
  let parsed = parsedUrls.get(url, cacheDefaults);
  if (parsed === undefined) {
    const { origin, pathname, search } = new URL(url);
    parsed = { origin, path: `${pathname}${search}` };
    parsedUrls.set(url, parsed);
  }
  return parsed;
}
