import type { IndexedDocument } from '../../core/web/search-index.ts';
import type { ReadOptions, WebReader } from '../../core/web/web-reader.ts';
import { plainTextContent } from '../reader/html-article.ts';
import { publishedAtOf } from './html-text.ts';

/** A page may take this long to fetch and extract (the reader endpoint's default is 20 s). */
const readTimeoutMs = 30_000;

/**
 * A web page as an index document, read by the platform reader (SSRF guard, extraction,
 * charset handling and cache included) as plain text: the index wants words, not Markdown.
 * `refresh` bypasses the reader's cache, so a refreshed page is fetched again.
 */
export async function readPageDocument(reader: WebReader, url: string, refresh: boolean, signal: AbortSignal, now: number): Promise<IndexedDocument> {
  const options: ReadOptions = { ...plainTextContent, timeoutMs: readTimeoutMs, noCache: refresh, signal };
  const page = await reader.read(url, options);
  const metadata = page.metadata;
  return {
    url,
    title: page.title.trim() || url,
    content: page.content,
    description: page.description,
    siteName: metadata['og:site_name'] ?? metadata['application-name'] ?? '',
    // The reader reports meta tags, not <link rel=icon>: results fall back to the site's /favicon.ico.
    icon: '',
    publishedAt: publishedAtOf(page.publishedTime ?? metadata['article:published_time'] ?? ''),
    indexedAt: now,
  };
}
