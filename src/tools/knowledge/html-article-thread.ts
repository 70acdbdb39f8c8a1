import { Worker } from 'node:worker_threads';
import { typescriptWorkerEntry } from '../../core/threads/typescript-worker-entry.ts';
import type { HtmlArticle } from '../reader/html-article.ts';

export interface HtmlArticleRequest {
  readonly html: string;
  readonly url: string;
}

export type HtmlArticleReply = { readonly article: HtmlArticle | undefined } | { readonly error: string };

const workerEntry = typescriptWorkerEntry(new URL('./html-article-worker.ts', import.meta.url));

/** Longest one extraction may take; pages the caller caps take far less. */
const extractionTimeoutMs = 120_000;
/** Heap of the extraction's thread: a DOM is several times the size of its HTML. */
const threadHeapMegabytes = 1024;

/**
 * extractHtmlArticle (the reader's Readability extraction) in a thread of its own, started for
 * this page and ended after it, so a large uploaded page costs the server's event loop nothing.
 * Rejects with the extraction's own message (elements nested too deep), on `signal`, or after
 * the timeout.
 */
export function extractHtmlArticleInThread(html: string, url: string, signal: AbortSignal): Promise<HtmlArticle | undefined> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerEntry, {
      workerData: { html, url } satisfies HtmlArticleRequest,
      resourceLimits: { maxOldGenerationSizeMb: threadHeapMegabytes },
    });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
      void worker.terminate();
      outcome();
    };
    const abort = () => settle(() => reject(signal.reason as Error));
    const timer = setTimeout(() => settle(() => reject(new Error(`reading the HTML took longer than ${extractionTimeoutMs / 1000} s`))), extractionTimeoutMs);
    signal.addEventListener('abort', abort, { once: true });
    worker.once('message', (reply: HtmlArticleReply) => settle(() => ('error' in reply ? reject(new Error(reply.error)) : resolve(reply.article))));
    worker.once('error', (error) => settle(() => reject(error)));
    worker.once('exit', (code) => settle(() => reject(new Error(`the HTML reading thread ended (code ${code}) before it answered`))));
  });
}
