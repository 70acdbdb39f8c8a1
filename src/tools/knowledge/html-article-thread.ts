import { runInThread, type ThreadLimits } from '../../core/threads/one-shot-thread.ts';
import type { HtmlArticle } from '../reader/html-article.ts';

export interface HtmlArticleRequest {
  readonly html: string;
  readonly url: string;
}

const workerModule = new URL('./html-article-worker.ts', import.meta.url);

/**
 * Heap of one HTML thread: the parser's memory. A DOM is several times the size of its HTML;
 * 5 MB of HTML under the element cap fits well within it.
 */
const htmlThreadHeapMegabytes = 512;

/**
 * extractHtmlArticle (the reader's Readability extraction) in a thread of its own, started for
 * this page and ended after it (its heap goes with it), so a large uploaded page costs the
 * server's event loop nothing. Rejects with the extraction's own
 * message (elements nested too deep), on `signal`, or past the limits.
 */
export function extractHtmlArticleInThread(html: string, url: string, timeoutMs: number, signal: AbortSignal): Promise<HtmlArticle | undefined> {
  const limits: ThreadLimits = { timeoutMs, heapMegabytes: htmlThreadHeapMegabytes };
  return runInThread<HtmlArticle | undefined>(workerModule, { html, url } satisfies HtmlArticleRequest, limits, 'reading the HTML', signal);
}
