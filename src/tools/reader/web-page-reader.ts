import { createHash } from 'node:crypto';
import { invalidField } from '../../core/errors/api-error.ts';
import type { ReadOptions, ReadResult, WebReader } from '../../core/web/web-reader.ts';
import type { ReaderCacheRepository } from '../../store/reader-cache-repository.ts';
import { fetchTimedOut } from '../fetch/fetch-errors.ts';
import type { FetchedResource, GuardedFetcher } from '../fetch/guarded-fetcher.ts';
import { decodeText } from '../fetch/text-decoding.ts';
import { looksLikeChallenge } from './challenge-page.ts';
import { HtmlExtractor, type ContentOptions, type ExtractedPage } from './html-extractor.ts';
import type { PageRenderer } from './page-renderer.ts';
import { readPdfText } from './pdf-text.ts';
import { challengePage, nestedTooDeep, nothingReadable, notReadable, pageHttpError, unreadablePdf } from './reader-errors.ts';

export interface WebPageReaderOptions {
  readonly fetcher: GuardedFetcher;
  /** Undefined: no cache. */
  readonly cache: ReaderCacheRepository | undefined;
  readonly cacheTtlMs: number;
  /** Set when script-built pages are rendered in a browser (config `reader.render`). */
  readonly renderer: PageRenderer | undefined;
  /** Unix ms; tests move it to expire cache entries. */
  readonly now?: () => number;
  /** Problems that do not fail a read (a cache write, a render that fell back to the static page). */
  readonly warn: (message: string, error: unknown) => void;
}

type DocumentKind = 'html' | 'pdf' | 'text';

/**
 * The platform's web reader: cache, guarded fetch, then by kind of document: HTML (optionally
 * rendered first) through the HTML extractor, PDF through pdf.js's text layer, plain text as is.
 */
export class WebPageReader implements WebReader {
  readonly #options: WebPageReaderOptions;
  readonly #extractor = new HtmlExtractor();
  readonly #now: () => number;
  readonly #warn: (message: string, error: unknown) => void;

  constructor(options: WebPageReaderOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#warn = options.warn;
  }

  async read(url: string, options: ReadOptions): Promise<ReadResult> {
    if (!URL.canParse(url)) throw invalidField('url', 'must be an absolute http or https URL');
    const cache = this.#options.cache;
    const caching = cache !== undefined && this.#options.cacheTtlMs > 0;
    const key = cacheKey(url, options);
    if (caching && !options.noCache) {
      const cached = await cache.get(key, this.#now()).catch((error: unknown) => this.#warn('reader cache read failed', error));
      if (cached !== undefined) return cached;
    }
    const result = await this.#readFresh(url, options);
    if (caching) {
      const now = this.#now();
      await cache.put(key, result, now, now + this.#options.cacheTtlMs).catch((error: unknown) => this.#warn('reader cache write failed', error));
    }
    return result;
  }

  async #readFresh(url: string, options: ReadOptions): Promise<ReadResult> {
    const deadline = Date.now() + options.timeoutMs;
    const resource = await this.#options.fetcher.fetch(url, { timeoutMs: options.timeoutMs, signal: options.signal });
    const kind = documentKind(resource);
    if (resource.status >= 400) {
      if (kind === 'html') {
        const html = decodeText(resource.body, resource.contentType.charset, true);
        if (looksLikeChallenge(titleOf(html), html, 0)) throw challengePage(url);
      }
      throw pageHttpError(url, resource.status);
    }
    if (kind === undefined) throw notReadable(url, resource.contentType.mediaType);
    const page =
      kind === 'pdf'
        ? await this.#readPdf(url, resource, options)
        : kind === 'text'
          ? textPage(decodeText(resource.body, resource.contentType.charset, false), options)
          : await this.#readHtml(url, resource, options, deadline);
    if (page.content === '') throw nothingReadable(url, false, false);
    return { url, ...page };
  }

  async #readHtml(url: string, resource: FetchedResource, options: ReadOptions, deadline: number): Promise<ExtractedPage> {
    let html = decodeText(resource.body, resource.contentType.charset, true);
    let finalUrl = resource.url;
    const renderer = this.#options.renderer;
    if (renderer !== undefined) {
      try {
        ({ html, url: finalUrl } = await renderer.render(resource, deadline, options.signal));
      } catch (error) {
        if (options.signal.aborted) throw options.signal.reason;
        if (Date.now() >= deadline || (error instanceof Error && error.name === 'TimeoutError')) throw fetchTimedOut(url, options.timeoutMs);
        // The static page is still worth reading; the failure is for the operator's log.
        this.#warn(`rendering ${url} failed; reading the page as served`, error);
      }
    }
    const extraction = this.#extractor.extract(html, finalUrl, options);
    if (extraction.kind === 'challenge') throw challengePage(url);
    if (extraction.kind === 'empty') throw nothingReadable(url, extraction.scripted, renderer !== undefined);
    if (extraction.kind === 'too-deep') throw nestedTooDeep(url, extraction.maxDepth);
    return extraction.page;
  }

  async #readPdf(url: string, resource: FetchedResource, options: ContentOptions): Promise<ExtractedPage> {
    let pdf;
    try {
      pdf = await readPdfText(resource.body);
    } catch (error) {
      throw unreadablePdf(url, error instanceof Error ? error.message : String(error));
    }
    const content = pdf.pages.filter((page) => page !== '').join('\n\n');
    if (content === '') throw unreadablePdf(url, 'it has no text layer; image-only pages need OCR, see layout_parsing');
    return {
      title:
        pdf.title ||
        (content
          .split('\n')
          .find((line) => line.trim() !== '')
          ?.trim() ??
          ''),
      description: pdf.subject,
      content,
      metadata: pdf.metadata,
      stylesheets: {},
      ...summaries(options),
      ...(pdf.publishedTime === undefined ? {} : { publishedTime: pdf.publishedTime }),
    };
  }
}

/** The cache key: the URL and every option that changes the result (not the timeout). */
export function cacheKey(url: string, options: ContentOptions): string {
  const parts = [
    new URL(url).href,
    options.returnFormat,
    options.retainImages,
    options.noGfm,
    options.keepImgDataUrl,
    options.withImagesSummary,
    options.withLinksSummary,
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

function documentKind(resource: FetchedResource): DocumentKind | undefined {
  const type = resource.contentType.mediaType;
  if (type === 'application/pdf' || resource.body.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'text/plain' || type === 'text/markdown' || type === 'text/x-markdown') return 'text';
  // Servers that do not say, or say something generic: the bytes decide.
  if (type === '' || type === 'application/octet-stream' || type === 'text/xml' || type === 'application/xml') {
    return looksLikeHtml(resource.body) ? 'html' : undefined;
  }
  return undefined;
}

function looksLikeHtml(body: Buffer): boolean {
  const head = body
    .subarray(0, 1024)
    .toString('latin1')
    .replace(/^\uFEFF|^\xEF\xBB\xBF/, '')
    .trimStart()
    .toLowerCase();
  return head.startsWith('<!doctype html') || head.startsWith('<html') || /<(head|body)[\s>]/.test(head);
}

function titleOf(html: string): string {
  return /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1]?.trim() ?? '';
}

function textPage(text: string, options: ContentOptions): ExtractedPage {
  return { title: '', description: '', content: text.trim(), metadata: {}, stylesheets: {}, ...summaries(options) };
}

/** Documents without images or links still answer the summaries asked for, empty. */
function summaries(options: ContentOptions): Pick<ExtractedPage, 'images' | 'links'> {
  return { ...(options.withImagesSummary ? { images: {} } : {}), ...(options.withLinksSummary ? { links: {} } : {}) };
}
