// A one-shot worker thread of extractHtmlArticleInThread: Readability over a large page takes
// seconds of CPU, which must not stop the server's event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { extractHtmlArticle } from '../reader/html-article.ts';
import type { HtmlArticleReply, HtmlArticleRequest } from './html-article-thread.ts';

const port = parentPort;
if (port === null) throw new Error('html-article-worker.ts runs as a worker thread of extractHtmlArticleInThread');
const { html, url } = workerData as HtmlArticleRequest;
let reply: HtmlArticleReply;
try {
  reply = { article: extractHtmlArticle(html, url) };
} catch (error) {
  reply = { error: error instanceof Error ? error.message : String(error) };
}
port.postMessage(reply);
