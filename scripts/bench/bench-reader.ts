// npm run bench:reader — pages/s of the web reader on a generated ~200 KB article, against the bare
// Readability + turndown pipeline, in one run: (1) extraction only (no network), (2) with the
// fetch over loopback (the platform's guarded fetcher vs a bare undici request).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { gfm } from 'turndown-plugin-gfm';
import { request } from 'undici';
import type { ReadOptions } from '../../src/core/web/web-reader.ts';
import { GuardedFetcher } from '../../src/tools/fetch/guarded-fetcher.ts';
import { SsrfGuard } from '../../src/tools/fetch/ssrf-guard.ts';
import { HtmlExtractor } from '../../src/tools/reader/html-extractor.ts';
import { WebPageReader } from '../../src/tools/reader/web-page-reader.ts';

const seconds = Number(process.env['BENCH_SECONDS'] ?? '5');
const rounds = Number(process.env['BENCH_ROUNDS'] ?? '3');

/** A news-like article: nav and footer around ~200 KB of sections, links, code, tables, figures. */
function generateArticle(targetBytes: number): string {
  const parts: string[] = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>The long article | Bench News</title>',
    '<meta name="description" content="A generated article for the reader benchmark."><meta name="keywords" content="bench, reader">',
    '<meta name="viewport" content="width=device-width"><meta property="article:published_time" content="2025-01-02T03:04:05Z">',
    '<link rel="stylesheet" href="/css/site.css"></head><body>',
    `<header><nav>${Array.from({ length: 30 }, (_, index) => `<a href="/section/${index}">Section ${index}</a>`).join(' ')}</nav></header>`,
    '<main><article><h1>The long article</h1>',
  ];
  let size = parts.join('').length;
  for (let section = 1; size < targetBytes; section += 1) {
    const block = [
      `<h2 id="s${section}">Section ${section}</h2>`,
      `<p>Paragraph ${section} has <a href="../notes/${section}.html">a relative link</a>, <em>emphasis</em>, <strong>strength</strong> and <code>inline code</code>. `,
      'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. ',
      'Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat.</p>',
      section % 4 === 0 ? `<pre><code class="language-js">function f${section}(x) {\n  return x * ${section};\n}</code></pre>` : '',
      section % 6 === 0
        ? `<table><thead><tr><th>Key</th><th>Value</th></tr></thead><tbody><tr><td>k${section}</td><td>${section * 3}</td></tr><tr><td>j${section}</td><td>${section * 5}</td></tr></tbody></table>`
        : '',
      section % 5 === 0 ? `<figure><img src="img/figure-${section}.png" alt="Figure ${section}"><figcaption>Figure ${section}</figcaption></figure>` : '',
      section % 7 === 0 ? '<ul><li>One point</li><li>Another point</li><li>A last point</li></ul>' : '',
    ].join('');
    parts.push(block);
    size += block.length;
  }
  parts.push('</article></main><footer><p>Copyright Bench News.</p><a href="/privacy">Privacy</a></footer></body></html>');
  return parts.join('');
}

/** The baseline: what a bare reader does (parse, Readability, turndown of the content HTML). */
function barePipeline(turndown: TurndownService, html: string): string {
  const { document } = parseHTML(html);
  const article = new Readability(document).parse();
  return turndown.turndown(article?.content ?? '');
}

/** Pages per second of `work` over `seconds`, after a short warm-up. */
async function pagesPerSecond(work: () => Promise<unknown> | unknown): Promise<number> {
  for (let warm = 0; warm < 3; warm += 1) await work();
  const started = performance.now();
  let pages = 0;
  while (performance.now() - started < seconds * 1000) {
    await work();
    pages += 1;
  }
  return pages / ((performance.now() - started) / 1000);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function main(): Promise<void> {
  const html = generateArticle(200 * 1024);
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const pageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/news/article.html`;

  const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
  turndown.use(gfm);
  const extractor = new HtmlExtractor();
  const fetcher = new GuardedFetcher({ guard: new SsrfGuard({ allow: ['127.0.0.1'] }), maxBytes: 20 * 1024 * 1024, userAgent: 'bench' });
  const reader = new WebPageReader({ fetcher, cache: undefined, cacheTtlMs: 0, renderer: undefined, warn: (message, error) => console.warn(message, error) });
  const options: ReadOptions = {
    timeoutMs: 20_000,
    noCache: true,
    returnFormat: 'markdown',
    retainImages: true,
    noGfm: false,
    keepImgDataUrl: false,
    withImagesSummary: false,
    withLinksSummary: false,
    signal: new AbortController().signal,
  };

  const ours = extractor.extract(html, pageUrl, options);
  const bare = barePipeline(turndown, html);
  if (ours.kind !== 'page') throw new Error(`the reader found no article: ${ours.kind}`);
  console.log(
    `Article: ${(html.length / 1024).toFixed(0)} KB of HTML -> ${(ours.page.content.length / 1024).toFixed(0)} KB of Markdown (bare pipeline: ${(bare.length / 1024).toFixed(0)} KB)`,
  );
  console.log(`${rounds} rounds of ${seconds} s per pipeline, interleaved; medians below`);

  const results: Record<string, number[]> = { bareExtract: [], oursExtract: [], bareFetch: [], oursFetch: [] };
  for (let round = 0; round < rounds; round += 1) {
    results['bareExtract']?.push(await pagesPerSecond(() => barePipeline(turndown, html)));
    results['oursExtract']?.push(await pagesPerSecond(() => extractor.extract(html, pageUrl, options)));
    results['bareFetch']?.push(
      await pagesPerSecond(async () => {
        const response = await request(pageUrl);
        barePipeline(turndown, await response.body.text());
      }),
    );
    results['oursFetch']?.push(await pagesPerSecond(() => reader.read(pageUrl, options)));
  }
  const value = (name: string): number => median(results[name] ?? []);
  const rows: [string, number, number][] = [
    ['extraction only (no network)', value('bareExtract'), value('oursExtract')],
    ['with the loopback fetch', value('bareFetch'), value('oursFetch')],
  ];
  console.log('\nscenario                      | bare readability+turndown | model-platform reader | ratio');
  for (const [name, baseline, platform] of rows) {
    console.log(
      `${name.padEnd(29)} | ${baseline.toFixed(2).padStart(19)} p/s | ${platform.toFixed(2).padStart(15)} p/s | ${(platform / baseline).toFixed(2)}x`,
    );
  }
  console.log('target: ratio >= 0.9x');
  await fetcher.close();
  server.close();
}

await main();
