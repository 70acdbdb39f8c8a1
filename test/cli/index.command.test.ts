import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import type { IndexHit, SearchIndex } from '../../src/core/web/search-index.ts';
import type { ReadOptions, ReadResult, WebReader } from '../../src/core/web/web-reader.ts';
import { ProgressBar } from '../../src/tools/search-ingest/progress-bar.ts';
import { ingestItems } from '../../src/tools/search-ingest/search-ingester.ts';
import { openDatabase } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { createSearchIndex } from '../../src/store/search-index/create-search-index.ts';
import { runCli } from '../helpers/cli-process.ts';

/** Reads the index the CLI wrote, the way the server would. */
async function searchIndexOf(dataDir: string, text: string): Promise<IndexHit[]> {
  const database = openDatabase({ databaseUrl: undefined, dataDir });
  try {
    return await createSearchIndex(database).query({ text, limit: 10, domain: undefined, publishedAfter: undefined, snippetLength: 500 });
  } finally {
    await database.close();
  }
}

function htmlPage(title: string, body: string, head = ''): string {
  return `<!DOCTYPE html><html><head><title>${title}</title>${head}</head><body>${body}<script>var hidden = "scriptword";</script></body></html>`;
}

/** Lines of the progress bar in a non-terminal stderr. */
function progressLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.startsWith('['));
}

describe('model-platform index (files)', () => {
  let dataDir: string;
  let pagesDir: string;
  let environment: NodeJS.ProcessEnv;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'index-cli-data-'));
    pagesDir = mkdtempSync(join(tmpdir(), 'index-cli-pages-'));
    mkdirSync(join(pagesDir, 'guides'));
    mkdirSync(join(pagesDir, '.hidden'));
    writeFileSync(
      join(pagesDir, 'kayak.html'),
      htmlPage(
        'Sea kayaking',
        '<h1>Sea kayaking</h1><p>Paddle strokes for open water.</p>',
        '<meta property="article:published_time" content="2024-06-01T08:00:00Z">',
      ),
    );
    writeFileSync(
      join(pagesDir, 'guides', 'tent.htm'),
      htmlPage(
        'Pitching a tent',
        '<p>Stake the corners of the tent before the fly.</p>',
        '<link rel="canonical" href="https://camp.example.com/guides/tent"><meta property="og:site_name" content="Camp Example">',
      ),
    );
    writeFileSync(join(pagesDir, 'guides', 'knots.md'), '---\ntitle: Knots for climbers\ndate: 2023-09-10\n---\nThe figure-eight knot ties a climber in.\n');
    writeFileSync(join(pagesDir, 'notes.txt'), 'Campfire safety\nKeep water near every campfire.\n');
    writeFileSync(join(pagesDir, 'image.png'), 'not a page');
    writeFileSync(join(pagesDir, '.hidden', 'secret.html'), htmlPage('Hidden', '<p>hiddenword</p>'));
    environment = { MODEL_PLATFORM_DATA_DIR: dataDir };
  });
  after(() => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(pagesDir, { recursive: true, force: true });
  });

  it('adds a directory of pages with a progress bar, then skips them on a second run', async () => {
    const first = await runCli(['index', 'add', pagesDir], environment);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /Indexed 4, skipped 0 already indexed, failed 0\. The index holds 4 documents\./);
    const lines = progressLines(first.stderr);
    assert.equal(lines.at(0), `[${'.'.repeat(30)}] 0/4 0% indexed 0 skipped 0 failed 0`);
    assert.equal(lines.at(-1), `[${'#'.repeat(30)}] 4/4 100% indexed 4 skipped 0 failed 0`);
    assert.equal(lines.length, 5, first.stderr);

    const [kayak] = await searchIndexOf(dataDir, 'paddle');
    assert.equal(kayak?.document.title, 'Sea kayaking');
    assert.equal(kayak?.document.url, pathToFileURL(join(pagesDir, 'kayak.html')).href);
    assert.equal(kayak?.document.publishedAt, Date.UTC(2024, 5, 1, 8));
    const [tent] = await searchIndexOf(dataDir, 'tent stake');
    assert.equal(tent?.document.url, 'https://camp.example.com/guides/tent', 'a saved page is indexed under the URL it states');
    assert.equal(tent?.document.siteName, 'Camp Example');
    const [knots] = await searchIndexOf(dataDir, 'figure-eight knot');
    assert.equal(knots?.document.title, 'Knots for climbers');
    assert.equal(knots?.document.publishedAt, Date.UTC(2023, 8, 10));
    assert.equal((await searchIndexOf(dataDir, 'campfire'))[0]?.document.title, 'Campfire safety');
    assert.deepEqual(await searchIndexOf(dataDir, 'scriptword'), [], 'script text is not indexed');
    assert.deepEqual(await searchIndexOf(dataDir, 'hiddenword'), [], 'hidden directories are skipped');

    const second = await runCli(['index', 'add', pagesDir], environment);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /Indexed 0, skipped 4 already indexed, failed 0\. The index holds 4 documents\./);
    assert.equal(progressLines(second.stderr).at(-1), `[${'#'.repeat(30)}] 4/4 100% indexed 0 skipped 4 failed 0`);

    writeFileSync(join(pagesDir, 'notes.txt'), 'Campfire safety\nDrown the embers before leaving.\n');
    const refreshed = await runCli(['index', 'add', join(pagesDir, 'notes.txt'), '--refresh'], environment);
    assert.equal(refreshed.code, 0, refreshed.stderr);
    assert.match(refreshed.stdout, /Indexed 1, skipped 0/);
    assert.equal((await searchIndexOf(dataDir, 'embers'))[0]?.document.title, 'Campfire safety');
  });

  it('reports and counts items that fail without stopping the run', async () => {
    writeFileSync(join(pagesDir, 'extra.html'), htmlPage('Canoe portage', '<p>Carry the canoe between lakes.</p>'));
    const emptyDir = mkdtempSync(join(tmpdir(), 'index-cli-empty-'));
    writeFileSync(join(emptyDir, 'empty.html'), '<html><head><title>Moved</title></head><body></body></html>');
    const result = await runCli(
      ['index', 'add', join(pagesDir, 'missing-dir'), join(pagesDir, 'image.png'), join(emptyDir, 'empty.html'), join(pagesDir, 'extra.html')],
      environment,
    );
    rmSync(emptyDir, { recursive: true, force: true });
    assert.equal(result.code, 1, 'some items failed');
    assert.match(result.stderr, /failed: .*missing-dir: no such file or directory/);
    assert.match(result.stderr, /failed: .*image\.png: not a file type/);
    assert.match(result.stderr, /failed: .*empty\.html: no text to index/);
    assert.match(result.stdout, /Indexed 1, skipped 0 already indexed, failed 3\./);
    assert.equal((await searchIndexOf(dataDir, 'portage'))[0]?.document.title, 'Canoe portage');
  });

  it('removes one URL, or every URL under a prefix*', async () => {
    const one = await runCli(['index', 'remove', pathToFileURL(join(pagesDir, 'kayak.html')).href], environment);
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, /Removed 1 document\. The index holds 4 documents\./);
    assert.deepEqual(await searchIndexOf(dataDir, 'paddle'), []);

    const prefix = await runCli(['index', 'remove', `${pathToFileURL(pagesDir).href}/*`], environment);
    assert.equal(prefix.code, 0, prefix.stderr);
    assert.match(prefix.stdout, /Removed 3 documents\. The index holds 1 document\./);
    assert.equal((await searchIndexOf(dataDir, 'tent'))[0]?.document.url, 'https://camp.example.com/guides/tent');

    const nothing = await runCli(['index', 'remove', 'https://nowhere.example/'], environment);
    assert.equal(nothing.code, 1);
    assert.match(nothing.stderr, /No indexed document matches https:\/\/nowhere\.example\//);

    const usage = await runCli(['index', 'remove'], environment);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /Usage: model-platform index add/);
  });
});

describe('model-platform index add: HTML through the reader, --base-url', () => {
  let dataDir: string;
  let siteDir: string;
  const article = [
    'The alpine lake trail climbs four hundred metres through larch forest before it reaches the first lake.',
    'Walkers should carry water, because the springs along the trail dry up by the middle of summer.',
    'From the upper lake the marmot colony can be watched from the moraine without disturbing the animals.',
    'The descent follows the same path; the loop over the ridge is closed after the first snow.',
  ];
  const boilerplatePage = htmlPage(
    'Alpine lake trail',
    '<header><nav><ul><li><a href="/">Home</a></li><li><a href="/shop">Shopmenuword basket</a></li><li><a href="/login">Sign in</a></li></ul></nav></header>' +
      `<main><article><h1>Alpine lake trail</h1>${article.map((paragraph) => `<p>${paragraph}</p>`).join('')}</article></main>` +
      '<footer><p>Footerword copyright 2024 Trail Society. All rights reserved.</p><a href="/privacy">Privacy</a></footer>',
  );
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'index-base-url-data-'));
    siteDir = mkdtempSync(join(tmpdir(), 'index-base-url-site-'));
    mkdirSync(join(siteDir, 'hikes', 'summer trips'), { recursive: true });
    writeFileSync(join(siteDir, 'hikes', 'summer trips', 'alpine lake.html'), boilerplatePage);
    writeFileSync(
      join(siteDir, 'hikes', 'saved.html'),
      htmlPage('Saved copy', '<p>Glacier crossing with crampons and a rope team.</p>', '<link rel="canonical" href="https://elsewhere.example/saved">'),
    );
    writeFileSync(join(siteDir, 'readme.md'), '# Trail notes\nBring a headlamp for the tunnel.\n');
  });
  after(() => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(siteDir, { recursive: true, force: true });
  });

  it('indexes the article of a page, not its navigation or footer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'index-boilerplate-'));
    const pageDataDir = mkdtempSync(join(tmpdir(), 'index-boilerplate-data-'));
    try {
      writeFileSync(join(dir, 'lake.html'), boilerplatePage);
      const result = await runCli(['index', 'add', dir], { MODEL_PLATFORM_DATA_DIR: pageDataDir });
      assert.equal(result.code, 0, result.stderr);
      const [hit] = await searchIndexOf(pageDataDir, 'marmot');
      assert.equal(hit?.document.title, 'Alpine lake trail');
      assert.equal(hit?.document.url, pathToFileURL(join(dir, 'lake.html')).href, 'without --base-url a file keeps its file:// URL');
      for (const paragraph of article) assert.ok(hit?.document.content.includes(paragraph), `the article is indexed: ${paragraph}`);
      assert.deepEqual(await searchIndexOf(pageDataDir, 'shopmenuword'), [], 'navigation is not indexed');
      assert.deepEqual(await searchIndexOf(pageDataDir, 'footerword'), [], 'the footer is not indexed');
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(pageDataDir, { recursive: true, force: true });
    }
  });

  it('lists the files of a folder under --base-url, path segments encoded, whatever a page states', async () => {
    const result = await runCli(['index', 'add', siteDir, '--base-url', 'https://docs.example.com/guide/'], { MODEL_PLATFORM_DATA_DIR: dataDir });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Indexed 3, skipped 0/);
    assert.equal((await searchIndexOf(dataDir, 'marmot'))[0]?.document.url, 'https://docs.example.com/guide/hikes/summer%20trips/alpine%20lake.html');
    assert.equal((await searchIndexOf(dataDir, 'glacier'))[0]?.document.url, 'https://docs.example.com/guide/hikes/saved.html');
    assert.equal((await searchIndexOf(dataDir, 'headlamp'))[0]?.document.url, 'https://docs.example.com/guide/readme.md');

    // A file named alone is rooted in its own folder.
    const single = await runCli(['index', 'add', join(siteDir, 'hikes', 'saved.html'), '--base-url', 'https://mirror.example', '--refresh'], {
      MODEL_PLATFORM_DATA_DIR: dataDir,
    });
    assert.equal(single.code, 0, single.stderr);
    const urls = (await searchIndexOf(dataDir, 'glacier')).map((hit) => hit.document.url).sort();
    assert.deepEqual(urls, ['https://docs.example.com/guide/hikes/saved.html', 'https://mirror.example/saved.html']);
  });

  it('refuses a --base-url that is not an absolute http(s) URL (exit 2, usage)', async () => {
    for (const baseUrl of ['docs.example.com', 'file:///srv/site', 'https://docs.example.com/?a=1']) {
      const result = await runCli(['index', 'add', siteDir, '--base-url', baseUrl], { MODEL_PLATFORM_DATA_DIR: dataDir });
      assert.equal(result.code, 2, baseUrl);
      assert.match(result.stderr, /--base-url must be an absolute http\(s\) URL/);
      assert.match(result.stderr, /Usage: model-platform index add/);
    }
  });
});

describe('search ingestion', () => {
  it('keeps what it stored when interrupted, and a second run goes on from there', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ingest-resume-'));
    const database = openDatabase({ databaseUrl: undefined, dataDir });
    try {
      await migrateToLatest(database);
      const index: SearchIndex = createSearchIndex(database);
      const controller = new AbortController();
      const asked: { url: string; noCache: boolean }[] = [];
      const reader: WebReader = {
        read(url: string, options: ReadOptions): Promise<ReadResult> {
          asked.push({ url, noCache: options.noCache });
          assert.equal(options.returnFormat, 'text');
          // The third page never comes: the run is interrupted while it is read.
          if (url.endsWith('/3')) {
            controller.abort(new Error('interrupted'));
            return Promise.reject(new Error('interrupted'));
          }
          return Promise.resolve({
            url,
            title: `Page ${url.slice(-1)}`,
            description: '',
            content: `quokka number ${url.slice(-1)}`,
            metadata: {},
            stylesheets: {},
          });
        },
      };
      const items = [1, 2, 3, 4].map((number) => ({ kind: 'url' as const, url: `https://pages.example/${number}` }));
      const output: string[] = [];
      const progress = { write: (text: string) => output.push(text) };
      await assert.rejects(ingestItems(items, { index, reader, progress }, { refresh: false, concurrency: 1, signal: controller.signal }), /interrupted/);
      assert.equal(await index.count(), 2, 'the pages read before the interruption are stored');

      asked.length = 0;
      const rerun = await ingestItems(
        items,
        { index, reader: { read: (url, options) => reader.read(url.replace('/3', '/3?again'), options) }, progress },
        {
          refresh: false,
          concurrency: 2,
          signal: new AbortController().signal,
        },
      );
      assert.deepEqual(rerun, { indexed: 2, skipped: 2, failed: 0 });
      assert.deepEqual(asked.map((call) => call.url).sort(), ['https://pages.example/3?again', 'https://pages.example/4'], 'stored pages are not read again');
      assert.equal(await index.count(), 4);

      asked.length = 0;
      const refreshed = await ingestItems(
        items.slice(0, 1),
        { index, reader, progress },
        { refresh: true, concurrency: 1, signal: new AbortController().signal },
      );
      assert.deepEqual(refreshed, { indexed: 1, skipped: 0, failed: 0 });
      assert.deepEqual(asked, [{ url: 'https://pages.example/1', noCache: true }], '--refresh reads again, past the reader cache');
    } finally {
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('redraws one line on a terminal, with notes above it', () => {
    const written: string[] = [];
    let clock = 0;
    const bar = new ProgressBar({ isTTY: true, write: (text: string) => written.push(text) }, 4, () => clock);
    bar.update(1, { indexed: 1, skipped: 0, failed: 0 });
    clock += 10;
    bar.update(2, { indexed: 2, skipped: 0, failed: 0 });
    assert.equal(written.length, 1, 'redrawn at most every 100 ms');
    bar.note('failed: x: broken');
    clock += 200;
    bar.update(4, { indexed: 3, skipped: 0, failed: 1 });
    bar.finish();
    assert.deepEqual(written, [
      `\r\x1b[2K[${'#'.repeat(8)}${'.'.repeat(22)}] 1/4 25% indexed 1 skipped 0 failed 0`,
      `\r\x1b[2Kfailed: x: broken\n[${'#'.repeat(15)}${'.'.repeat(15)}] 2/4 50% indexed 2 skipped 0 failed 0`,
      `\r\x1b[2K[${'#'.repeat(30)}] 4/4 100% indexed 3 skipped 0 failed 1`,
      '\n',
    ]);
  });
});

describe('model-platform index (web pages through the reader)', () => {
  let dataDir: string;
  let server: Server;
  let origin: string;
  let environment: NodeJS.ProcessEnv;
  let holdSlowPages = true;
  before(async () => {
    server = createServer((request, response) => {
      const path = request.url ?? '/';
      const slow = /^\/slow\/(\d+)$/.exec(path);
      if (slow !== null) {
        const answer = () => {
          if (response.destroyed) return;
          response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          response.end(
            htmlPage(
              `Slow page ${slow[1]}`,
              `<article><h1>Slow page ${slow[1]}</h1><p>Wombats dig burrows; this is slow page number ${slow[1]} of the interruption test, long enough to be read as an article by the reader.</p></article>`,
            ),
          );
        };
        // While held, the first four pages come at once and the rest never: time to interrupt.
        if (Number(slow[1]) <= 4 || !holdSlowPages) answer();
        return;
      }
      if (path === '/slow-sitemap.xml') {
        response.writeHead(200, { 'content-type': 'application/xml' });
        response.end(`<urlset>${[1, 2, 3, 4, 5, 6, 7, 8].map((number) => `<url><loc>${origin}/slow/${number}</loc></url>`).join('')}</urlset>`);
        return;
      }
      if (path === '/sitemap.xml') {
        response.writeHead(200, { 'content-type': 'application/xml' });
        response.end(
          `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
            `<url><loc>${origin}/pages/orchid</loc></url><url><loc><![CDATA[${origin}/pages/fern?a=1&b=2]]></loc></url><url><loc>${origin}/pages/gone</loc></url></urlset>`,
        );
        return;
      }
      const pages: Record<string, string> = {
        '/pages/orchid': htmlPage(
          'Growing orchids',
          '<article><h1>Growing orchids</h1><p>Orchids like bright, indirect light and bark instead of soil. Water them weekly and let the roots dry between waterings so they never rot.</p></article>',
          '<meta property="og:site_name" content="Garden Test"><meta property="article:published_time" content="2025-03-01T00:00:00Z">',
        ),
        '/pages/fern?a=1&b=2': htmlPage(
          'Ferns in shade',
          '<article><h1>Ferns in shade</h1><p>Ferns thrive in damp shade and humid air; a shaded corner of the garden suits most of them, with mulch to keep the soil moist.</p></article>',
        ),
      };
      const html = pages[path];
      response.writeHead(html === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(html ?? 'not found');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dataDir = mkdtempSync(join(tmpdir(), 'index-cli-web-'));
    const configPath = join(dataDir, 'config.yaml');
    writeFileSync(configPath, stringify({ fetch: { allow: ['127.0.0.1'] } }));
    environment = { MODEL_PLATFORM_DATA_DIR: dataDir, MODEL_PLATFORM_CONFIG: configPath };
  });
  after(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('expands a sitemap, reads each page with the platform reader, and counts the page that fails', async () => {
    const result = await runCli(['index', 'add', `${origin}/sitemap.xml`], environment);
    assert.equal(result.code, 1, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /Indexed 2, skipped 0 already indexed, failed 1\. The index holds 2 documents\./);
    assert.match(result.stderr, new RegExp(`failed: ${origin}/pages/gone: `));
    const [orchid] = await searchIndexOf(dataDir, 'orchids bark');
    assert.equal(orchid?.document.url, `${origin}/pages/orchid`);
    assert.equal(orchid?.document.title, 'Growing orchids');
    assert.equal(orchid?.document.siteName, 'Garden Test');
    assert.equal(orchid?.document.publishedAt, Date.UTC(2025, 2, 1));
    assert.equal((await searchIndexOf(dataDir, 'ferns shade'))[0]?.document.url, `${origin}/pages/fern?a=1&b=2`);

    const again = await runCli(['index', 'add', `${origin}/pages/orchid`], environment);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /Indexed 0, skipped 1 already indexed/);
  });

  it('stops at Ctrl-C keeping what it stored, and the next run goes on from there', async () => {
    const cli = fileURLToPath(new URL('../../bin/model-platform.js', import.meta.url));
    const child = spawn(process.execPath, [cli, 'index', 'add', `${origin}/slow-sitemap.xml`], { env: { PATH: process.env['PATH'], ...environment } });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('indexed 4 ')) resolve();
      });
      void exited.then(() => reject(new Error(`exited before four pages were indexed: ${stderr}`)));
    });
    child.kill('SIGINT');
    assert.equal(await exited, 130, stderr);
    assert.match(stderr, /Interrupted\. The index holds 6 documents; run the same command again to go on\./);

    server.closeAllConnections();
    holdSlowPages = false;
    const resumed = await runCli(['index', 'add', `${origin}/slow-sitemap.xml`], environment);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, /Indexed 4, skipped 4 already indexed, failed 0\. The index holds 10 documents\./);
  });

  it('refuses a loopback page when fetch.allow does not let it through', async () => {
    const closedDir = mkdtempSync(join(tmpdir(), 'index-cli-guard-'));
    try {
      const result = await runCli(['index', 'add', `${origin}/pages/orchid`], { MODEL_PLATFORM_DATA_DIR: closedDir });
      assert.equal(result.code, 1);
      assert.match(result.stdout, /Indexed 0, skipped 0 already indexed, failed 1\./);
    } finally {
      rmSync(closedDir, { recursive: true, force: true });
    }
  });
});
