import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createSearxngBackend } from '../../src/backends/searxng/searxng.backend.ts';
import type { SearxngSettings } from '../../src/backends/searxng/searxng-settings.ts';
import { EngineFailure } from '../../src/core/errors/engine-failure.ts';
import type { SearchQuery, WebSearcher } from '../../src/core/web/web-searcher.ts';
import { unusedResources } from '../helpers/backend-resources.ts';

/** A SearXNG instance on loopback: records each request and answers from a script (JSON by default). */
interface Answer {
  readonly status?: number;
  readonly body: unknown;
  readonly contentType?: string;
  readonly delayMs?: number;
}
const received: { url: URL; headers: IncomingHttpHeaders }[] = [];
let script: (url: URL) => Answer = () => ({ body: { results: [] } });
let server: Server;
let baseUrl: string;

before(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://searxng.test');
    received.push({ url, headers: request.headers });
    const answer = script(url);
    setTimeout(() => {
      if (response.destroyed) return;
      response.writeHead(answer.status ?? 200, { 'content-type': answer.contentType ?? 'application/json' });
      response.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
    }, answer.delayMs ?? 0);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
after(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});
beforeEach(() => {
  received.length = 0;
  script = () => ({ body: { results: [] } });
});

function searcher(entry: Partial<SearxngSettings> = {}): WebSearcher {
  const backend = createSearxngBackend({
    modelName: 'my-searxng',
    entry: { backend: 'searxng', baseUrl, ...entry },
    configDir: '.',
    resources: unusedResources,
  });
  assert.ok(backend.search !== undefined);
  return backend.search;
}

function searchQuery(query: string, overrides: Partial<SearchQuery> = {}): SearchQuery {
  return {
    query,
    count: 10,
    domainFilter: undefined,
    recencyFilter: 'noLimit',
    contentSize: 'medium',
    intent: false,
    signal: new AbortController().signal,
    ...overrides,
  };
}

function result(url: string, extra: Record<string, unknown> = {}) {
  return {
    url,
    title: `Title of ${url}`,
    content: `Snippet of ${url}`,
    engine: 'duckduckgo',
    parsed_url: ['https', new URL(url).host, new URL(url).pathname, '', '', ''],
    ...extra,
  };
}

async function engineFailureOf(promise: Promise<unknown>): Promise<EngineFailure> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof EngineFailure, `expected an EngineFailure, got ${String(error)}`);
    return error;
  }
  assert.fail('the search succeeded');
}

describe('searxng engine', () => {
  it('asks GET /search with q, format=json and pageno=1, and maps the results', async () => {
    script = () => ({
      body: {
        query: 'rust async',
        results: [
          result('https://www.rust-lang.org/async', { publishedDate: '2024-03-05T10:20:00' }),
          result('https://blog.example.org/post', { publishedDate: null, content: undefined }),
        ],
      },
    });
    const { results, intents } = await searcher().search(searchQuery('rust async', { count: 2 }));
    assert.equal(received.length, 1);
    const asked = received[0]?.url;
    assert.equal(asked?.pathname, '/search');
    assert.deepEqual(Object.fromEntries(asked?.searchParams ?? []), { q: 'rust async', format: 'json', pageno: '1' });
    assert.equal(received[0]?.headers['authorization'], undefined);
    assert.deepEqual(results, [
      {
        title: 'Title of https://www.rust-lang.org/async',
        content: 'Snippet of https://www.rust-lang.org/async',
        link: 'https://www.rust-lang.org/async',
        media: 'www.rust-lang.org',
        icon: 'https://www.rust-lang.org/favicon.ico',
        refer: 'ref_1',
        publishDate: '2024-03-05',
      },
      {
        title: 'Title of https://blog.example.org/post',
        content: '',
        link: 'https://blog.example.org/post',
        media: 'blog.example.org',
        icon: 'https://blog.example.org/favicon.ico',
        refer: 'ref_2',
        publishDate: '',
      },
    ]);
    assert.deepEqual(intents, []);
  });

  it('sends the recency filter as time_range and the domain as site:, and keeps only that domain', async () => {
    script = () => ({
      body: {
        results: [result('https://docs.example.com/a'), result('https://elsewhere.org/b'), result('https://example.com/c'), result('https://notexample.com/d')],
      },
    });
    const ranges: [SearchQuery['recencyFilter'], string][] = [
      ['oneDay', 'day'],
      ['oneWeek', 'week'],
      ['oneMonth', 'month'],
      ['oneYear', 'year'],
    ];
    for (const [recencyFilter, timeRange] of ranges) {
      received.length = 0;
      const { results } = await searcher().search(searchQuery('release notes', { recencyFilter, domainFilter: 'www.example.com', count: 3 }));
      const parameters = received[0]?.url.searchParams;
      assert.equal(parameters?.get('time_range'), timeRange);
      assert.equal(parameters?.get('q'), 'release notes site:example.com');
      assert.deepEqual(
        results.map((item) => item.link),
        ['https://docs.example.com/a', 'https://example.com/c'],
      );
    }
  });

  it('reads further pages until count is reached, and stops when a page brings nothing new', async () => {
    script = (url) => {
      const page = Number(url.searchParams.get('pageno'));
      if (page > 2) return { body: { results: [] } };
      return { body: { results: Array.from({ length: 4 }, (_, index) => result(`https://site.example/${page}-${index}`)) } };
    };
    const five = await searcher().search(searchQuery('pages', { count: 5 }));
    assert.deepEqual(
      received.map((request) => request.url.searchParams.get('pageno')),
      ['1', '2'],
    );
    assert.deepEqual(
      five.results.map((item) => item.refer),
      ['ref_1', 'ref_2', 'ref_3', 'ref_4', 'ref_5'],
    );
    received.length = 0;
    const all = await searcher().search(searchQuery('pages', { count: 50 }));
    assert.equal(all.results.length, 8);
    assert.deepEqual(
      received.map((request) => request.url.searchParams.get('pageno')),
      ['1', '2', '3'],
    );
  });

  it('cuts content to the size asked and sends the apiKey when configured', async () => {
    script = () => ({ body: { results: [result('https://long.example/x', { content: 'x'.repeat(3000) })] } });
    const medium = await searcher({ apiKey: 'proxy-secret' }).search(searchQuery('long'));
    assert.equal(medium.results[0]?.content.length, 500);
    assert.equal(received[0]?.headers['authorization'], 'Bearer proxy-secret');
    const high = await searcher().search(searchQuery('long', { contentSize: 'high' }));
    assert.equal(high.results[0]?.content.length, 2500);
  });

  it('says clearly what went wrong', async () => {
    script = () => ({ status: 403, body: '<html>Forbidden</html>', contentType: 'text/html' });
    const forbidden = await engineFailureOf(searcher().search(searchQuery('x')));
    assert.equal(forbidden.kind, 'engine-error');
    assert.match(forbidden.message, /search\.formats/);

    script = () => ({ body: '<html>not json</html>', contentType: 'text/html' });
    assert.match((await engineFailureOf(searcher().search(searchQuery('x')))).message, /not JSON/);

    script = () => ({ body: { error: 'nothing' } });
    const noResults = await engineFailureOf(searcher().search(searchQuery('x')));
    assert.equal(noResults.kind, 'bad-answer');
    assert.match(noResults.message, /results/);

    script = () => ({ status: 429, body: 'Too Many Requests', contentType: 'text/plain' });
    assert.equal((await engineFailureOf(searcher().search(searchQuery('x')))).kind, 'overloaded');

    script = () => ({ status: 502, body: 'Bad gateway', contentType: 'text/plain' });
    const badGateway = await engineFailureOf(searcher().search(searchQuery('x')));
    assert.equal(badGateway.kind, 'engine-error');
    assert.match(badGateway.message, /HTTP 502: Bad gateway/);

    script = () => ({ body: { results: [] }, delayMs: 2_000 });
    const slow = await engineFailureOf(searcher({ timeoutMs: 100 }).search(searchQuery('x')));
    assert.equal(slow.kind, 'timeout');
    assert.match(slow.message, /100 ms/);
  });

  it('reports an unreachable instance as a network error (1234)', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    const unreachable = await engineFailureOf(searcher({ baseUrl: `http://127.0.0.1:${port}` }).search(searchQuery('x')));
    assert.equal(unreachable.kind, 'unreachable');
    assert.match(unreachable.message, /my-searxng.*ECONNREFUSED/);
  });

  it('passes the client abort on', async () => {
    script = () => ({ body: { results: [] }, delayMs: 5_000 });
    const controller = new AbortController();
    const pending = searcher().search(searchQuery('x', { signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('client gone')), 50);
    await assert.rejects(pending, /client gone/);
  });

  it('stops reading an answer over maxResponseBytes (1230) and serves the next search', async () => {
    script = () => ({ body: { results: [result('https://a.example/', { content: 'x'.repeat(64 * 1024) })] } });
    const capped = await engineFailureOf(searcher({ maxResponseBytes: 16 * 1024 }).search(searchQuery('x')));
    assert.equal(capped.kind, 'too-large');
    assert.match(capped.message, /my-searxng.*16 KiB|my-searxng.*16384 bytes/);
    script = () => ({ body: { results: [result('https://a.example/')] } });
    const served = await searcher({ maxResponseBytes: 16 * 1024 }).search(searchQuery('x'));
    assert.equal(served.results.length, 1);
  });
});
