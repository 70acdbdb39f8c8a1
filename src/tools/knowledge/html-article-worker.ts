// A one-shot worker thread of extractHtmlArticleInThread: Readability over a large page takes
// seconds of CPU, which must not stop the server's event loop.
import { answerInThread } from '../../core/threads/one-shot-thread.ts';
import { extractHtmlArticle } from '../reader/html-article.ts';
import type { HtmlArticleRequest } from './html-article-thread.ts';

await answerInThread(({ html, url }: HtmlArticleRequest) => extractHtmlArticle(html, url));
