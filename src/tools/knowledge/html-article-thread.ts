import { runInThread, type ThreadLimits } from '../../core/threads/one-shot-thread.ts';
import type { HtmlArticle } from '../reader/html-article.ts';

export interface HtmlArticleRequest {
  readonly html: string;
  readonly url: string;
}

const workerModule = new URL('./html-article-worker.ts', import.meta.url);

/**
 * extractHtmlArticle (the reader's Readability extraction) in a thread of its own, started for
 * this page and ended after it, so a large uploaded page costs the server's event loop nothing.
 * Its heap: a DOM is several times the size of its HTML. Rejects with the extraction's own
 * message (elements nested too deep), on `signal`, or past the limits.
 */
export function extractHtmlArticleInThread(html: string, url: string, timeoutMs: number, signal: AbortSignal): Promise<HtmlArticle | undefined> {
  const limits: ThreadLimits = { timeoutMs, heapMegabytes: 1024 };
  return runInThread<HtmlArticle | undefined>(workerModule, { html, url } satisfies HtmlArticleRequest, limits, 'reading the HTML', signal);
}
