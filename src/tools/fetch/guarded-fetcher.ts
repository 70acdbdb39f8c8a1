import { pipeline, type Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Agent, request } from 'undici';
import { ApiError } from '../../core/errors/api-error.ts';
import { parseContentType, type ContentType } from './content-type.ts';
import { blockedAddress, fetchTimedOut, hostNotFound, tooLarge, tooManyRedirects, unreachable, unsupportedScheme } from './fetch-errors.ts';
import { readHttpUrl } from './http-url.ts';
import { BlockedAddressError, type SsrfGuard } from './ssrf-guard.ts';
import { nullPrototypeRecord } from '../../core/objects/null-prototype-record.ts';

export interface FetchOptions {
  /** For the whole fetch: every redirect, the headers and the body. */
  readonly timeoutMs: number;
  /** The caller's cancellation (a client that went away); its reason is rethrown as is. */
  readonly signal?: AbortSignal;
  /** Overrides the fetcher's size cap. */
  readonly maxBytes?: number;
  readonly method?: string;
  /** Replace the default request headers of the same (lower-case) name. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Uint8Array | string;
  /** false hands a redirect back as it is (the browser follows redirects itself); default true. */
  readonly followRedirects?: boolean;
}

export interface FetchedResource {
  /** The URL the caller asked for. */
  readonly requestedUrl: string;
  /** The URL the body came from, after redirects. */
  readonly url: string;
  readonly status: number;
  /** Lower-case names; repeated headers joined with ", "; Content-Encoding removed once decoded. */
  readonly headers: Readonly<Record<string, string>>;
  /** Decoded bytes (gzip, deflate and br are undone). */
  readonly body: Buffer;
  readonly contentType: ContentType;
}

export interface GuardedFetcherOptions {
  readonly guard: SsrfGuard;
  /** Most bytes of a body, after decompression (so a small gzip bomb cannot fill memory). */
  readonly maxBytes: number;
  readonly userAgent: string;
  readonly maxRedirects?: number;
  /**
   * One origin (scheme, host and port) the guard does not judge: an engine the operator
   * configured, which may sit on a private address. Only a hop to exactly this origin skips the
   * address policy; any other hop, a redirect from this origin included, is guarded as usual.
   */
  readonly trustedOrigin?: string;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);
const defaultMaxRedirects = 5;

/**
 * Every server-side fetch of the platform: HTTP(S) through the SSRF guard, which sees every
 * address before a socket connects (literals before the request, names in the connector's DNS
 * lookup) and again on each redirect, which this fetcher follows itself. One deadline covers the
 * whole fetch; the body is counted while it streams and abandoned past the cap.
 */
export class GuardedFetcher {
  readonly guard: SsrfGuard;
  readonly #options: GuardedFetcherOptions;
  readonly #dispatcher: Agent;
  /** Connections to the trusted origin only (its own pool, so no guarded host can reuse them). */
  readonly #trustedDispatcher: Agent | undefined;
  readonly #trustedOrigin: string | undefined;

  constructor(options: GuardedFetcherOptions) {
    this.guard = options.guard;
    this.#options = options;
    this.#dispatcher = new Agent({ connect: { lookup: options.guard.lookup }, keepAliveTimeout: 4_000 });
    this.#trustedOrigin = options.trustedOrigin === undefined ? undefined : new URL(options.trustedOrigin).origin;
    this.#trustedDispatcher = this.#trustedOrigin === undefined ? undefined : new Agent({ keepAliveTimeout: 4_000 });
  }

  async fetch(url: string, options: FetchOptions): Promise<FetchedResource> {
    // One controller and one timer per fetch: AbortSignal.any/timeout per call grows memory on Node 20.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error('timed out'));
    }, options.timeoutMs);
    const forwardAbort = (): void => controller.abort(options.signal?.reason);
    if (options.signal?.aborted === true) forwardAbort();
    else options.signal?.addEventListener('abort', forwardAbort, { once: true });
    let current: URL | undefined;
    let start: URL | undefined;
    try {
      const reading = readHttpUrl(url);
      if (reading.url === undefined) throw new ApiError('1214', `Invalid parameter 'url': ${shortened(url)} ${reading.problem}.`);
      start = reading.url;
      current = start;
      return await this.#follow(url, start, options, controller.signal, (next) => (current = next));
    } catch (error) {
      if (options.signal?.aborted === true) throw options.signal.reason;
      if (timedOut) throw fetchTimedOut(url, options.timeoutMs);
      if (start === undefined) throw error;
      throw this.#explain(error, url, current === start ? undefined : current);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', forwardAbort);
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.#dispatcher.close(), this.#trustedDispatcher?.close()]);
  }

  async #follow(requested: string, start: URL, options: FetchOptions, signal: AbortSignal, onHop: (url: URL) => void): Promise<FetchedResource> {
    const maxRedirects = this.#options.maxRedirects ?? defaultMaxRedirects;
    const maxBytes = options.maxBytes ?? this.#options.maxBytes;
    let current = start;
    let method = options.method ?? 'GET';
    let body = options.body;
    let extraHeaders: Record<string, string> = { ...options.headers };
    for (let redirects = 0; ; redirects += 1) {
      if (current.protocol !== 'http:' && current.protocol !== 'https:') {
        throw unsupportedScheme(requested, redirects === 0 ? undefined : current.href);
      }
      // Each hop is judged on its own: a redirect from the trusted origin to another port of the same host is guarded.
      const trusted = this.#trustedDispatcher !== undefined && current.origin === this.#trustedOrigin;
      if (!trusted) this.guard.checkHost(current.hostname);
      const response = await request(current, {
        dispatcher: trusted ? this.#trustedDispatcher : this.#dispatcher,
        method: method as 'GET',
        headers: { ...this.#defaultHeaders(), ...extraHeaders },
        ...(body === undefined ? {} : { body }),
        signal,
      });
      const headers = flattenHeaders(response.headers);
      const location = headers['location'];
      if (options.followRedirects !== false && redirectStatuses.has(response.statusCode) && location !== undefined) {
        await response.body.dump();
        if (redirects >= maxRedirects) throw tooManyRedirects(requested, maxRedirects);
        const next = new URL(location, current);
        // Credentials the caller meant for one origin do not follow a redirect to another.
        if (next.origin !== current.origin) extraHeaders = withoutHeaders(extraHeaders, ['authorization', 'cookie']);
        if (response.statusCode === 303 || (response.statusCode <= 302 && method === 'POST')) {
          method = 'GET';
          body = undefined;
          extraHeaders = withoutHeaders(extraHeaders, ['content-type']);
        }
        current = next;
        onHop(current);
        continue;
      }
      const declaredLength = Number(headers['content-length'] ?? '0');
      const encoding = headers['content-encoding']?.trim().toLowerCase() ?? '';
      if (encoding === '' && declaredLength > maxBytes) {
        response.body.destroy();
        throw tooLarge(requested, maxBytes);
      }
      const bytes = await readCapped(response.body, encoding, maxBytes, () => tooLarge(requested, maxBytes));
      if (decodedEncodings.has(encoding)) {
        delete headers['content-encoding'];
        delete headers['content-length'];
      }
      return {
        requestedUrl: requested,
        url: current.href,
        status: response.statusCode,
        headers,
        body: bytes,
        contentType: parseContentType(headers['content-type']),
      };
    }
  }

  #defaultHeaders(): Record<string, string> {
    return {
      'user-agent': this.#options.userAgent,
      accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,application/pdf;q=0.8,text/plain;q=0.8,*/*;q=0.5',
      'accept-language': 'en-US,en;q=0.9,*;q=0.5',
      'accept-encoding': 'gzip, deflate, br',
    };
  }

  /**
   * The one ApiError a failed fetch becomes (timeouts and client aborts are handled by the
   * caller); `redirected` is the URL of the hop that failed when it was not the first.
   */
  #explain(error: unknown, requested: string, redirected: URL | undefined): unknown {
    const current = redirected ?? new URL(requested);
    if (error instanceof ApiError) return error;
    const blocked = findCause(error, (cause): cause is BlockedAddressError => cause instanceof BlockedAddressError);
    if (blocked !== undefined) return blockedAddress(requested, redirected?.href, blocked);
    const coded = findCause(error, (cause): cause is Error & { code: string } => typeof (cause as { code?: unknown }).code === 'string');
    if (coded?.code === 'ENOTFOUND' || coded?.code === 'EAI_AGAIN') return hostNotFound(requested, current.hostname);
    if (error instanceof TypeError && error.message.includes('Invalid URL')) {
      return unreachable(requested, 'a redirect points to an invalid URL');
    }
    return unreachable(requested, coded?.code ?? (error instanceof Error ? error.message : String(error)));
  }
}

/** The caller's text, cut short when long. */
function shortened(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  // The names are the remote server's: kept on a null-prototype object, read as own properties only.
  const headers = nullPrototypeRecord<string>();
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

const decodedEncodings = new Set(['gzip', 'x-gzip', 'deflate', 'br']);

function withoutHeaders(headers: Record<string, string>, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name.toLowerCase())));
}

function decoderFor(encoding: string): Transform | undefined {
  if (encoding === 'gzip' || encoding === 'x-gzip') return createGunzip();
  if (encoding === 'deflate') return createInflate();
  if (encoding === 'br') return createBrotliDecompress();
  return undefined;
}

/** The body, decoded, counted while it streams; past `maxBytes` the transfer is dropped. */
async function readCapped(body: Readable, encoding: string, maxBytes: number, tooLargeError: () => Error): Promise<Buffer> {
  const decoder = decoderFor(encoding);
  const source: Readable = decoder === undefined ? body : pipeline(body, decoder, () => undefined);
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > maxBytes) throw tooLargeError();
      chunks.push(chunk);
    }
  } finally {
    if (!body.readableEnded) body.destroy();
  }
  return Buffer.concat(chunks, total);
}

function findCause<T>(error: unknown, matches: (cause: unknown) => cause is T): T | undefined {
  for (let cause = error, depth = 0; cause !== undefined && cause !== null && depth < 5; depth += 1) {
    if (matches(cause)) return cause;
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}
