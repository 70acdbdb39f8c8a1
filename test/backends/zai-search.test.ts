import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createZaiBackend } from '../../src/backends/zai/zai.backend.ts';
import type { ZaiSettings } from '../../src/backends/zai/zai-settings.ts';
import { EngineFailure } from '../../src/core/errors/engine-failure.ts';
import type { SearchQuery, WebSearcher } from '../../src/core/web/web-searcher.ts';
import { unusedResources } from '../helpers/backend-resources.ts';
import { jsonReply, startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';

let upstream: FakeOpenAiServer;
let baseUrl: string;
before(async () => {
  upstream = await startFakeOpenAiServer();
  baseUrl = `${upstream.origin}/api/paas/v4`;
});
after(() => upstream.close());
beforeEach(() => upstream.reset());

function searcher(entry: Partial<ZaiSettings> = {}): WebSearcher {
  const backend = createZaiBackend({
    modelName: 'search-prime',
    entry: { backend: 'zai', baseUrl, apiKey: 'upstream-id.upstream-secret', ...entry },
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

const upstreamResult = {
  title: 'GLM release',
  content: 'The new model was released today.',
  link: 'https://news.example.cn/glm',
  media: 'Example News',
  icon: 'https://news.example.cn/icon.png',
  refer: 'ref_1',
  publish_date: '2025-07-28',
};

async function engineFailureOf(promise: Promise<unknown>): Promise<EngineFailure> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof EngineFailure, `expected an EngineFailure, got ${String(error)}`);
    return error;
  }
  assert.fail('the search succeeded');
}

describe('zai web search', () => {
  it("posts the platform's own body with the apiKey to {baseUrl}/web_search and reads the answer", async () => {
    upstream.enqueue(
      jsonReply({
        id: 'upstream-id',
        created: 1753700000,
        request_id: 'upstream-request',
        search_intent: [{ query: 'GLM release', intent: 'SEARCH_ALL', keywords: 'GLM release' }],
        search_result: [upstreamResult, { title: 'Partial', link: 'https://b.example/' }],
      }),
    );
    const answer = await searcher({ upstreamModel: 'search_pro' }).search(
      searchQuery('GLM release', { count: 5, domainFilter: 'news.example.cn', recencyFilter: 'oneWeek', contentSize: 'high', intent: true }),
    );
    const request = upstream.requests[0];
    assert.equal(request?.method, 'POST');
    assert.equal(request?.path, '/api/paas/v4/web_search');
    assert.equal(request?.headers['authorization'], 'Bearer upstream-id.upstream-secret');
    assert.deepEqual(request?.body, {
      search_engine: 'search_pro',
      search_query: 'GLM release',
      count: 5,
      search_domain_filter: 'news.example.cn',
      search_recency_filter: 'oneWeek',
      content_size: 'high',
      search_intent: true,
    });
    assert.deepEqual(answer.intents, [{ query: 'GLM release', intent: 'SEARCH_ALL', keywords: 'GLM release' }]);
    assert.deepEqual(answer.results, [
      {
        title: 'GLM release',
        content: 'The new model was released today.',
        link: 'https://news.example.cn/glm',
        media: 'Example News',
        icon: 'https://news.example.cn/icon.png',
        refer: 'ref_1',
        publishDate: '2025-07-28',
      },
      { title: 'Partial', content: '', link: 'https://b.example/', media: '', icon: '', refer: '', publishDate: '' },
    ]);
  });

  it('sends the public engine name when no upstreamModel is set, leaves an absent domain out, and reads a single intent object', async () => {
    upstream.enqueue(jsonReply({ search_intent: { query: 'q', intent: 'SEARCH_NONE', keywords: ['a', 'b'] }, search_result: [] }));
    const answer = await searcher().search(searchQuery('q'));
    assert.equal(upstream.requests[0]?.body['search_engine'], 'search-prime');
    assert.equal('search_domain_filter' in (upstream.requests[0]?.body ?? {}), false);
    assert.deepEqual(answer, { results: [], intents: [{ query: 'q', intent: 'SEARCH_NONE', keywords: 'a b' }] });
  });

  it("passes the upstream's error codes on, as the zai chat engine does", async () => {
    upstream.enqueue(jsonReply({ error: { code: '1214', message: 'search_query is invalid' } }, 400));
    const invalid = await engineFailureOf(searcher().search(searchQuery('q')));
    assert.equal(invalid.kind, 'rejected-input');
    assert.equal(invalid.relayedCode, '1214');
    assert.equal(invalid.message, 'search_query is invalid');

    upstream.enqueue(jsonReply({ error: { code: '1002', message: 'Authorization Token invalid' } }, 401));
    const refused = await engineFailureOf(searcher().search(searchQuery('q')));
    assert.equal(refused.kind, 'misconfigured');
    assert.match(refused.message, /apiKey configured for model 'search-prime'/);

    upstream.enqueue(jsonReply({ error: { code: '1113', message: 'arrears' } }, 429));
    assert.equal((await engineFailureOf(searcher().search(searchQuery('q')))).relayedCode, '1113');

    upstream.enqueue(jsonReply({ id: 'x' }));
    const malformed = await engineFailureOf(searcher().search(searchQuery('q')));
    assert.equal(malformed.kind, 'bad-answer');
    assert.match(malformed.message, /search_result/);

    // A connection kept alive from the calls above and dropped before any answer is sent once more
    // on a new connection: the upstream drops that one too.
    upstream.enqueue({ kind: 'reset' }, { kind: 'reset' });
    assert.equal((await engineFailureOf(searcher().search(searchQuery('q')))).kind, 'unreachable');
  });
});
