import type { ApiError } from '../../core/errors/api-error.ts';
import type { AbortSource } from '../../core/chat/abort-source.ts';
import type { AnswerHandler } from '../../core/http/http1-connection.ts';
import type { Http1Agent, Http1Origin, RequestControl } from '../../core/http/http1-agent.ts';
import type { ResponseHead } from '../../core/http/http1-response-parser.ts';

export interface ExchangeOptions {
  readonly url: string;
  readonly headers: Record<string, string>;
  /** JSON text, or an encoded form (its content-type is in `headers`). */
  readonly body: string | Buffer;
  /** The client's signal: when it aborts, so does the exchange (its reason is the failure). */
  readonly signal: AbortSource;
  /** Limit for the whole exchange, answer included. */
  readonly timeoutMs: number;
  /** `whole`: the answer is collected (text); `streamed`: it is read as it comes (chunks). */
  readonly answer: 'whole' | 'streamed';
  /** The failure for an answer with a status outside 2xx, given its body text. */
  readonly errorAnswer: (status: number, text: string) => ApiError;
}

/** Chunks of a streamed answer waiting for their reader beyond this pause the socket. */
const maxQueuedChunks = 16;

/**
 * One POST to an engine through the engine client (Http1Agent). The engine call is the hot path
 * of every request: no AbortController, no Readable, no URL object per call — the exchange is the
 * handler the client calls back, the client's signal and the timeout abort the request, and the
 * answer is collected (or queued for a streamed read) as it arrives.
 */
export class EngineExchange implements AnswerHandler {
  /** Whole: settles with the answer's text at its end. Streamed: with '' once a 2xx status arrived. */
  readonly settled: Promise<string>;
  readonly #options: ExchangeOptions;
  readonly #timer: NodeJS.Timeout;
  readonly #onClientAbort = () => this.#cancel(this.#options.signal.reason);
  #resolve!: (text: string) => void;
  #reject!: (error: unknown) => void;
  readonly #request: RequestControl;
  #cancelledWith: Error | undefined;
  #timedOut = false;
  #status = 0;
  #socketPaused = false;
  /** Answer chunks: collected (whole, or an error answer), or queued for the reader (streamed). */
  #chunks: Buffer[] = [];
  #ended = false;
  #failedWith: unknown;
  #wakeReader: (() => void) | undefined;

  constructor(agent: Http1Agent, options: ExchangeOptions) {
    this.#options = options;
    this.settled = new Promise<string>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // A failure nobody awaits yet (the reader is between events) is read from #failedWith instead.
    this.settled.catch(() => undefined);
    const target = originAndPath(options.url);
    options.signal.addEventListener('abort', this.#onClientAbort, { once: true });
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.#cancel(new Error('timeout'));
    }, options.timeoutMs);
    // A request the client refuses (a header it will not send) comes back through onError, not thrown.
    this.#request = agent.post(target.origin, target.path, options.headers, options.body, this);
  }

  /** Whether the configured timeout ended the exchange. */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** The streamed answer's bytes, in order; throws what broke the connection. */
  async *chunks(): AsyncGenerator<Buffer> {
    for (;;) {
      const chunk = this.#chunks.shift();
      if (chunk !== undefined) {
        if (this.#socketPaused && this.#chunks.length === 0) {
          this.#socketPaused = false;
          this.#request.resume();
        }
        yield chunk;
        continue;
      }
      if (this.#failedWith !== undefined) throw this.#failedWith;
      if (this.#ended) return;
      await new Promise<void>((resolve) => (this.#wakeReader = resolve));
    }
  }

  /** Done with the exchange: its timer and listener go; an answer left unread is cut off (its socket closed). */
  end(): void {
    clearTimeout(this.#timer);
    this.#options.signal.removeEventListener('abort', this.#onClientAbort);
    if (!this.#ended && this.#failedWith === undefined) this.#cancel(new Error('the answer was left unread'));
  }

  onHead(head: ResponseHead): void {
    this.#status = head.status;
    if (this.#options.answer === 'streamed' && this.#answerIsOk()) this.#resolve('');
  }

  onBody(chunk: Buffer): void {
    this.#chunks.push(chunk);
    if (this.#options.answer === 'whole' || !this.#answerIsOk()) return;
    this.#wake();
    if (!this.#socketPaused && this.#chunks.length >= maxQueuedChunks) {
      this.#socketPaused = true;
      this.#request.pause();
    }
  }

  onEnd(): void {
    this.#ended = true;
    clearTimeout(this.#timer);
    if (!this.#answerIsOk()) {
      this.#reject(this.#options.errorAnswer(this.#status, this.#text()));
    } else if (this.#options.answer === 'whole') {
      this.#resolve(this.#text());
    }
    this.#wake();
  }

  onError(error: Error): void {
    clearTimeout(this.#timer);
    this.#failedWith = error;
    this.#reject(error);
    this.#wake();
  }

  #answerIsOk(): boolean {
    return this.#status >= 200 && this.#status <= 299;
  }

  #text(): string {
    const chunks = this.#chunks;
    this.#chunks = [];
    return (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8');
  }

  #cancel(reason: unknown): void {
    if (this.#cancelledWith !== undefined || this.#ended || this.#failedWith !== undefined) return;
    this.#cancelledWith = reason instanceof Error ? reason : new Error('aborted');
    this.#request.abort(this.#cancelledWith);
  }

  #wake(): void {
    const wake = this.#wakeReader;
    this.#wakeReader = undefined;
    wake?.();
  }
}

/** Engine URLs repeat (one per configured endpoint): each is parsed once. */
const parsedUrls = new Map<string, { readonly origin: Http1Origin; readonly path: string }>();
const maxParsedUrls = 1_000;

function originAndPath(url: string): { readonly origin: Http1Origin; readonly path: string } {
  let parsed = parsedUrls.get(url);
  if (parsed === undefined) {
    const { protocol, hostname, port, host, pathname, search } = new URL(url);
    // URL keeps IPv6 hosts in brackets; a socket connects to the bare address.
    parsed = { origin: { protocol, hostname: hostname.replace(/^\[(.*)\]$/, '$1'), port, host }, path: `${pathname}${search}` };
    // URLs with ids in them (task polling) would grow the map without end: start over past the bound.
    if (parsedUrls.size >= maxParsedUrls) parsedUrls.clear();
    parsedUrls.set(url, parsed);
  }
  return parsed;
}
