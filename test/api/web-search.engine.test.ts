import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { IndexedDocument } from '../../src/core/web/search-index.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { databaseTargets, reportSkippedPostgres } from '../helpers/test-databases.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

reportSkippedPostgres();

const day = 24 * 60 * 60 * 1000;
const resultKeys = ['content', 'icon', 'link', 'media', 'publish_date', 'refer', 'title'];

function page(index: number, extra: Partial<IndexedDocument> = {}): IndexedDocument {
  return {
    url: `https://lib${index}.example.org/glaciers/${index}`,
    title: `Glacier report ${index}`,
    content: `Glaciers retreat as the climate warms. Report ${index}. ${'Ice sheets and meltwater. '.repeat(60)}`,
    description: '',
    siteName: '',
    icon: '',
    publishedAt: Date.now() - index * day - day / 2,
    indexedAt: Date.now(),
    ...extra,
  };
}

for (const target of databaseTargets) {
  describe(`POST /paas/v4/web_search on the local index (${target.name})`, () => {
    let test: TestPlatform;
    let url: string | undefined;
    before(async () => {
      url = await target.create();
      test = await startTestPlatform(url === undefined ? {} : { databaseUrl: url });
      await test.platform.searchIndex.upsertMany([
        ...Array.from({ length: 12 }, (_, index) => page(index)),
        page(99, {
          url: 'https://www.polar.example/moraine',
          title: 'Moraines',
          content: 'A moraine is rock a glacier left behind.',
          siteName: 'Polar Example',
          publishedAt: Date.UTC(2024, 1, 29, 23, 0),
        }),
      ]);
    });
    after(async () => {
      await test.close();
      await target.drop(url);
    });

    it('answers with the exact shape, defaults applied (10 results, medium content, no intent)', async () => {
      const response = await postJson(test, '/paas/v4/web_search', {
        search_engine: 'search-prime',
        search_query: 'glacier report',
        request_id: 'client-req-1',
      });
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.deepEqual(Object.keys(body).sort(), ['created', 'id', 'request_id', 'search_result']);
      assert.equal(body.request_id, 'client-req-1');
      assert.match(body.id, /^\d{14}[0-9a-f]{16}$/);
      assert.ok(Math.abs(body.created - Date.now() / 1000) < 60);
      assert.equal(body.search_result.length, 10);
      for (const [rank, item] of (body.search_result as Record<string, string>[]).entries()) {
        assert.deepEqual(Object.keys(item).sort(), resultKeys);
        assert.equal(item['refer'], `ref_${rank + 1}`);
        assert.match(item['publish_date'] ?? '', /^\d{4}-\d{2}-\d{2}$/);
        assert.ok((item['content'] ?? '').length <= 500 && (item['content'] ?? '').length > 400);
        assert.ok(item['content']?.toLowerCase().includes('glacier'));
        assert.equal(item['icon'], `${new URL(item['link'] ?? '').origin}/favicon.ico`);
      }
    });

    it('maps every request field onto the engine and reports the intent when asked', async () => {
      const response = await postJson(test, '/api/paas/v4/web_search', {
        search_engine: 'search_pro',
        search_query: 'What is a moraine?',
        count: 3,
        search_domain_filter: 'polar.example',
        search_recency_filter: 'noLimit',
        content_size: 'high',
        search_intent: true,
        sensitive_word_check: null,
        include_image: false,
      });
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.deepEqual(Object.keys(body).sort(), ['created', 'id', 'request_id', 'search_intent', 'search_result']);
      assert.deepEqual(body.search_intent, [{ query: 'What is a moraine?', intent: 'SEARCH_ALL', keywords: 'moraine' }]);
      assert.deepEqual(body.search_result, [
        {
          title: 'Moraines',
          content: 'A moraine is rock a glacier left behind.',
          link: 'https://www.polar.example/moraine',
          media: 'Polar Example',
          icon: 'https://www.polar.example/favicon.ico',
          refer: 'ref_1',
          publish_date: '2024-02-29',
        },
      ]);
      assert.equal(typeof body.request_id, 'string');
    });

    it('narrows by recency and count, and answers an empty list when nothing matches', async () => {
      const lastWeek = await postJson(test, '/paas/v4/web_search', {
        search_engine: 'search-prime',
        search_query: 'glacier',
        search_recency_filter: 'oneWeek',
        count: 50,
      });
      assert.equal(lastWeek.json().search_result.length, 7, 'the pages published half a day to six and a half days ago');
      const two = await postJson(test, '/paas/v4/web_search', { search_engine: 'search-prime', search_query: 'glacier', count: 2 });
      assert.equal(two.json().search_result.length, 2);
      const none = await postJson(test, '/paas/v4/web_search', { search_engine: 'search-prime', search_query: 'NEAR("volcano" OR *' });
      assert.equal(none.statusCode, 200);
      assert.deepEqual(none.json().search_result, []);
    });
  });
}

describe('POST /paas/v4/web_search on configured engines', () => {
  let test: TestPlatform;
  let searxng: Server;
  const asked: string[] = [];
  before(async () => {
    searxng = createServer((request, response) => {
      asked.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ results: [{ url: 'https://www.example.net/a', title: 'A', content: 'About A', publishedDate: '2025-01-02T03:04:05Z' }] }));
    });
    searxng.listen(0, '127.0.0.1');
    await once(searxng, 'listening');
    const port = (searxng.address() as AddressInfo).port;
    test = await startTestPlatform({
      config: {
        models: {
          'my-searxng': { backend: 'searxng', baseUrl: `http://127.0.0.1:${port}` },
          'search-prime': { backend: 'searxng', baseUrl: `http://127.0.0.1:${port}/` },
        },
      },
    });
  });
  after(async () => {
    await test.close();
    searxng.close();
    await once(searxng, 'close');
  });

  it('routes a catalog engine to SearXNG and maps its answer', async () => {
    const response = await postJson(test, '/paas/v4/web_search', {
      search_engine: 'my-searxng',
      search_query: 'letters',
      count: 1,
      search_recency_filter: 'oneMonth',
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json().search_result, [
      {
        title: 'A',
        content: 'About A',
        link: 'https://www.example.net/a',
        media: 'www.example.net',
        icon: 'https://www.example.net/favicon.ico',
        refer: 'ref_1',
        publish_date: '2025-01-02',
      },
    ]);
    assert.equal(asked.at(-1), '/search?q=letters&format=json&time_range=month&pageno=1');
    const overridden = await postJson(test, '/paas/v4/web_search', { search_engine: 'search-prime', search_query: 'letters', count: 1 });
    assert.equal(overridden.json().search_result[0]?.title, 'A', 'the config overrides the zero-config engine of a platform name');
  });

  it('refuses an engine neither the platform nor the catalog knows', async () => {
    const response = await postJson(test, '/paas/v4/web_search', { search_engine: 'search-nowhere', search_query: 'x' });
    assertPlatformError(response, { status: 400, code: '1211', mentions: ['search-nowhere'] });
  });
});
