import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/**
 * A loopback "fake web" for the reader and fetch tests: real HTTP on 127.0.0.1, pages the tests
 * know by heart (an article with a table, code, images and relative links, charsets, redirects,
 * a slow and a huge page, files that are not pages, PDFs, a script-built page, a bot check).
 * It counts the requests per path, so a test can tell a cache hit from a fetch and prove that a
 * refused address was never reached.
 */
export interface FakeWeb {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly port: number;
  /** The URL of `path` on this server, under another host name when given (resolved by the test). */
  url(path: string, host?: string): string;
  /** Requests received for a path (without the query). */
  hits(path: string): number;
  close(): Promise<void>;
}

type Handler = (request: IncomingMessage, response: ServerResponse, url: URL) => void;

/** Readability wants a few hundred characters of prose before it calls something an article. */
function prose(topic: string, count: number): string {
  const sentences = [
    `The ${topic} is described here in enough words for a reader to take it for an article.`,
    'Every sentence adds a little more text, so that the extraction has something substantial to keep.',
    'Nothing in this paragraph is important, yet all of it is meant to be read and kept.',
  ];
  return Array.from({ length: count }, (_, index) => `<p>${sentences.join(' ')} Paragraph ${index + 1} of the ${topic}.</p>`).join('\n');
}

/** A 1×1 PNG, as a data URL. */
export const dotDataUrl = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

export const articleHtml = `<!doctype html>
<html lang="en"><head>
<meta charset="utf-8">
<title>Reading the Fake Web</title>
<meta name="description" content="An article the reader tests read.">
<meta name="keywords" content="reader, test, fake web">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="format-detection" content="telephone=no">
<meta property="og:title" content="Reading the Fake Web (Open Graph)">
<meta property="article:published_time" content="2024-05-06T07:08:09+02:00">
<link rel="stylesheet" href="/static/site.css">
<link rel="stylesheet" href="print.css" media="print">
</head><body>
<nav><a href="/">Home</a> | <a href="/about">About us</a></nav>
<article>
<h1>Reading the Fake Web</h1>
<p>This article links <a href="other/page.html">a relative page</a>, <a href="../up.html">a parent page</a>,
<a href="/root.html">a root page</a> and <a href="#notes">its own notes</a>. It has <strong>bold</strong> and <del>struck</del> words.</p>
${prose('article', 4)}
<h2>A table</h2>
<table><thead><tr><th>Planet</th><th>Moons</th></tr></thead>
<tbody><tr><td>Earth</td><td>1</td></tr><tr><td>Mars</td><td>2</td></tr></tbody></table>
<h2>Some code</h2>
<pre><code class="language-typescript">const answer: number = 42;
console.log(answer);</code></pre>
<pre class="lang-python"><code>print("indented")
    print("kept")</code></pre>
<figure><img src="images/chart.png" alt="A chart" srcset="images/chart.png 1x, images/chart@2x.png 2x"><figcaption>The chart caption</figcaption></figure>
<p>An inline dot: <img src="${dotDataUrl}" alt="A dot"> ends here.</p>
<ul><li>First item</li><li>Second item</li></ul>
<p id="notes">The notes close the article with a last sentence or two about nothing in particular.</p>
</article>
<footer>Footer text that is not part of the article.</footer>
</body></html>`;

function page(title: string, body: string, head = '<meta charset="utf-8">'): string {
  return `<!doctype html><html><head>${head}<title>${title}</title></head><body>${body}</body></html>`;
}

/** HTML whose bytes are ASCII markup around `text` encoded by `encode`. */
function legacyPage(title: string, head: string, text: Buffer): Buffer {
  const [before, after] = page(title, `<article><h1>${title}</h1><p>MARK</p>${prose(title, 3)}</article>`, head).split('MARK');
  return Buffer.concat([Buffer.from(before ?? '', 'latin1'), text, Buffer.from(after ?? '', 'latin1')]);
}

/** "Café – “quoted” €5" in windows-1252 bytes (0x93/0x94/0x96/0x80 are not ISO-8859-1 characters). */
const windows1252Text = Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x20, 0x96, 0x20, 0x93, 0x71, 0x75, 0x6f, 0x74, 0x65, 0x64, 0x94, 0x20, 0x80, 0x35]);
/** "Ærø og Ålborg" in ISO-8859-1. */
const latin1Text = Buffer.from('Ærø og Ålborg', 'latin1');
/** "中文网页" in GBK. */
const gbkText = Buffer.from([0xd6, 0xd0, 0xce, 0xc4, 0xcd, 0xf8, 0xd2, 0xb3]);

async function makePdf(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.setTitle('Quarterly Report');
  pdf.setSubject('Numbers of the quarter');
  pdf.setKeywords(['report', 'quarter']);
  pdf.setCreationDate(new Date('2024-02-03T04:05:06Z'));
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const first = pdf.addPage([595, 842]);
  first.drawText('Quarterly Report', { x: 50, y: 780, size: 24, font });
  first.drawText('Revenue grew by twelve percent.', { x: 50, y: 740, size: 12, font });
  const second = pdf.addPage([595, 842]);
  second.drawText('Outlook for the next quarter is steady.', { x: 50, y: 780, size: 12, font });
  return pdf.save();
}

function send(response: ServerResponse, status: number, type: string, body: string | Buffer | Uint8Array, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': type, ...headers });
  response.end(body);
}

export async function startFakeWeb(): Promise<FakeWeb> {
  const pdfBytes = await makePdf();
  const hits = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  let counter = 0;
  const html = 'text/html; charset=utf-8';

  const routes: Record<string, Handler> = {
    '/blog/article.html': (_request, response) => send(response, 200, html, articleHtml),
    '/gzip/article.html': (_request, response) => send(response, 200, html, gzipSync(articleHtml), { 'content-encoding': 'gzip' }),
    '/base/page.html': (_request, response) =>
      send(
        response,
        200,
        html,
        page(
          'Base',
          `<article><h1>Base</h1><p><a href="intro.html">Intro</a> <img src="pics/a.png" alt="Pic A"></p>${prose('base page', 3)}</article>`,
          '<meta charset="utf-8"><base href="/docs/v2/">',
        ),
      ),
    '/legacy-table.html': (_request, response) =>
      send(
        response,
        200,
        html,
        page(
          'Legacy table',
          `<article><h1>Legacy table</h1>${prose('legacy table', 2)}<table border="1"><tr><td><b>Name</b></td><td><b>Age</b></td></tr><tr><td>Ann</td><td>31</td></tr><tr><td>Bob</td><td>42</td></tr></table><table></table>${prose('legacy table', 1)}</article>`,
        ),
      ),
    '/counter': (_request, response) => {
      counter += 1;
      send(response, 200, html, page('Counter', `<article><h1>Counter</h1><p>Visit number ${counter}.</p>${prose('counter', 3)}</article>`));
    },
    '/charset/latin1-header': (_request, response) => send(response, 200, 'text/html; charset=ISO-8859-1', legacyPage('Latin one', '', latin1Text)),
    '/charset/windows-1252-meta': (_request, response) =>
      send(response, 200, 'text/html', legacyPage('Windows 1252', '<meta charset="windows-1252">', windows1252Text)),
    '/charset/gbk-meta': (_request, response) =>
      send(response, 200, 'text/html', legacyPage('GBK by meta', '<meta http-equiv="Content-Type" content="text/html; charset=gbk">', gbkText)),
    '/charset/gbk-header': (_request, response) => send(response, 200, 'text/html; charset=GBK', legacyPage('GBK by header', '', gbkText)),
    // The header wins over a meta that contradicts it.
    '/charset/header-over-meta': (_request, response) =>
      send(response, 200, 'text/html; charset=gbk', legacyPage('Header over meta', '<meta charset="utf-8">', gbkText)),
    '/slow': (request, response) => {
      response.writeHead(200, { 'content-type': html });
      response.write('<!doctype html><html><head><title>Slow</title></head><body>');
      const timer = setTimeout(() => response.end(`${prose('slow page', 3)}</body></html>`), 5_000);
      timers.add(timer);
      request.on('close', () => clearTimeout(timer));
    },
    '/huge': (request, response) => {
      response.writeHead(200, { 'content-type': html });
      const chunk = Buffer.from(`<p>${'x'.repeat(65_000)}</p>`);
      let sent = 0;
      const pump = (): void => {
        while (sent < 50_000_000 && !response.destroyed) {
          sent += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        response.end();
      };
      request.on('close', () => response.destroy());
      pump();
    },
    '/huge-declared': (_request, response) => {
      response.writeHead(200, { 'content-type': html, 'content-length': '50000000' });
      response.write('<html>');
    },
    '/files/archive.zip': (_request, response) => send(response, 200, 'application/zip', Buffer.from('PK\u0003\u0004 not really a zip', 'latin1')),
    '/images/photo.png': (_request, response) => send(response, 200, 'image/png', Buffer.from(dotDataUrl.split(',')[1] ?? '', 'base64')),
    '/notes.txt': (_request, response) => send(response, 200, 'text/plain; charset=utf-8', 'Plain notes.\nSecond line.\n'),
    '/docs/report.pdf': (_request, response) => send(response, 200, 'application/pdf', pdfBytes),
    '/download': (_request, response) => send(response, 200, 'application/octet-stream', pdfBytes),
    '/scripted': (_request, response) =>
      send(
        response,
        200,
        html,
        page(
          'Scripted story',
          `<div id="app"></div><noscript>Please enable JavaScript.</noscript>
<script>
fetch('/api/story.json').then((answer) => answer.json()).then((story) => {
  document.getElementById('app').innerHTML = '<article><h1>' + story.title + '</h1>' +
    story.paragraphs.map((text) => '<p>' + text + '</p>').join('') + '</article>';
});
</script>`,
        ),
      ),
    // Content built at once, then a script that takes 5 s keeps the `load` event from firing.
    '/scripted-slow-load': (_request, response) =>
      send(
        response,
        200,
        html,
        page(
          'Slow to load',
          `<div id="app"></div>
<script>document.getElementById('app').innerHTML = '<article><h1>Slow to load</h1>' + ${JSON.stringify(prose('slow-loading page', 3))} + '</article>';</script>
<script src="/slow"></script>`,
        ),
      ),
    '/api/story.json': (_request, response) =>
      send(
        response,
        200,
        'application/json',
        JSON.stringify({
          title: 'Built by a script',
          paragraphs: Array.from(
            { length: 5 },
            (_, index) => `Rendered paragraph ${index + 1}: this text exists only after the page script ran, long enough to be an article.`,
          ),
        }),
      ),
    '/scripted-probe': (_request, response, url) =>
      send(
        response,
        200,
        html,
        page(
          'Probe',
          `<div id="app"></div>
<script>
const target = ${JSON.stringify(url.searchParams.get('target') ?? '')};
const write = (line) => {
  document.getElementById('app').innerHTML = '<article><h1>Probe</h1><p>' + line + '</p>' + ${JSON.stringify(prose('probe', 3))} + '</article>';
};
fetch(target).then((answer) => answer.text()).then((text) => write('LEAKED ' + text), () => write('The private fetch failed.'));
</script>`,
        ),
      ),
    '/secret': (_request, response) => send(response, 200, 'text/plain', 'top secret'),
    '/challenge': (_request, response) =>
      send(
        response,
        403,
        html,
        page(
          'Just a moment...',
          '<div id="challenge-running">Checking your browser before accessing the site.</div><script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1"></script>',
        ),
      ),
    '/challenge-ok': (_request, response) =>
      send(
        response,
        200,
        html,
        page('Just a moment...', '<noscript>Enable JavaScript and cookies to continue</noscript><script>window._cf_chl_opt = {};</script>'),
      ),
    '/empty': (_request, response) => send(response, 200, html, page('Empty', '')),
    // Nested deeper than the reader takes apart (Readability would spend minutes, then overflow its stack).
    '/deep': (_request, response) => send(response, 200, html, page('Deep', `${'<div>'.repeat(10_000)}deep text${'</div>'.repeat(10_000)}`)),
    '/status/404': (_request, response) => send(response, 404, html, page('Not found', '<p>No such page.</p>')),
    '/status/503': (_request, response) => send(response, 503, html, page('Unavailable', '<p>Try later.</p>')),
    '/redirect/to': (_request, response, url) => {
      response.writeHead(302, { location: url.searchParams.get('location') ?? '/' });
      response.end();
    },
    '/redirect/loop': (_request, response) => {
      response.writeHead(301, { location: '/redirect/loop' });
      response.end();
    },
  };

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake.web');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    const chain = /^\/redirect\/chain\/(\d+)$/.exec(url.pathname);
    if (chain !== null) {
      const left = Number(chain[1]);
      response.writeHead(307, { location: left <= 1 ? '/blog/article.html' : `/redirect/chain/${left - 1}` });
      response.end();
      return;
    }
    const handler = routes[url.pathname];
    if (handler === undefined) send(response, 404, 'text/plain', 'not found');
    else handler(request, response, url);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    url: (path, host = '127.0.0.1') => `http://${host}:${port}${path}`,
    hits: (path) => hits.get(path) ?? 0,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
