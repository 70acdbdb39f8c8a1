import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { sharedIdCases } from '../helpers/shared-id-cases.ts';

const url = '/paas/v4/web_search';
const valid = { search_engine: 'search-prime', search_query: 'model platform' };

/** Each case breaks one rule; the answer must name the field (1213 missing, 1214 invalid). */
const rejected: { name: string; body: Record<string, unknown>; code: string; field: string }[] = [
  { name: 'search_engine missing', body: { search_query: 'x' }, code: '1213', field: 'search_engine' },
  { name: 'search_engine null', body: { ...valid, search_engine: null }, code: '1213', field: 'search_engine' },
  { name: 'search_engine empty', body: { ...valid, search_engine: '' }, code: '1214', field: 'search_engine' },
  { name: 'search_engine not a string', body: { ...valid, search_engine: 1 }, code: '1214', field: 'search_engine' },
  { name: 'search_query missing', body: { search_engine: 'search-prime' }, code: '1213', field: 'search_query' },
  { name: 'search_query empty', body: { ...valid, search_query: '' }, code: '1214', field: 'search_query' },
  { name: 'search_query blank', body: { ...valid, search_query: '   ' }, code: '1214', field: 'search_query' },
  { name: 'search_query not a string', body: { ...valid, search_query: ['a'] }, code: '1214', field: 'search_query' },
  { name: 'count 0', body: { ...valid, count: 0 }, code: '1214', field: 'count' },
  { name: 'count 51', body: { ...valid, count: 51 }, code: '1214', field: 'count' },
  { name: 'count not integer', body: { ...valid, count: 1.5 }, code: '1214', field: 'count' },
  { name: 'count as string', body: { ...valid, count: '10' }, code: '1214', field: 'count' },
  { name: 'count not a multiple of 10 on sogou', body: { ...valid, search_engine: 'search_pro_sogou', count: 15 }, code: '1214', field: 'count' },
  { name: 'search_domain_filter not a string', body: { ...valid, search_domain_filter: ['example.com'] }, code: '1214', field: 'search_domain_filter' },
  { name: 'search_recency_filter unknown', body: { ...valid, search_recency_filter: 'oneHour' }, code: '1214', field: 'search_recency_filter' },
  { name: 'content_size unknown', body: { ...valid, content_size: 'low' }, code: '1214', field: 'content_size' },
  { name: 'search_intent not boolean', body: { ...valid, search_intent: 'yes' }, code: '1214', field: 'search_intent' },
  ...sharedIdCases(valid),
];

describe('POST /paas/v4/web_search contract', () => {
  let test: TestPlatform;
  before(async () => {
    test = await startTestPlatform({ config: { models: { 'my-search': { backend: 'searxng', baseUrl: 'http://127.0.0.1:9' } } } });
  });
  after(() => test.close());

  for (const testCase of rejected) {
    it(`rejects: ${testCase.name}`, async () => {
      const response = await postJson(test, url, testCase.body);
      assertPlatformError(response, { status: 400, code: testCase.code, mentions: [testCase.field] });
    });
  }

  it('accepts a full request (SDK extras and unknown fields ignored) and answers from the zero-config local index', async () => {
    const response = await postJson(test, url, {
      ...valid,
      count: 50,
      search_domain_filter: 'www.example.com',
      search_recency_filter: 'oneWeek',
      content_size: 'high',
      search_intent: true,
      sensitive_word_check: { type: 'ALL', status: 'DISABLE' },
      include_image: true,
      request_id: 'req-123456',
      user_id: 'user-123456',
      location: 'cn',
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json().search_result, []);
  });

  it('accepts null for every optional field', async () => {
    const response = await postJson(test, url, {
      ...valid,
      count: null,
      search_domain_filter: null,
      search_recency_filter: null,
      content_size: null,
      search_intent: null,
      sensitive_word_check: null,
      include_image: null,
      request_id: null,
      user_id: null,
    });
    assert.equal(response.statusCode, 200, response.body);
  });

  it('accepts every platform search engine, and counts of 10 to 50 in tens on sogou', async () => {
    for (const engine of ['search_std', 'search_pro', 'search_pro_sogou', 'search_pro_quark']) {
      const response = await postJson(test, url, { ...valid, search_engine: engine, count: 20 });
      assert.equal(response.statusCode, 200, `${engine}: ${response.body}`);
    }
  });

  it('answers 1211 for a search engine neither the platform nor the catalog knows', async () => {
    const response = await postJson(test, url, { ...valid, search_engine: 'google' });
    assertPlatformError(response, { status: 400, code: '1211', mentions: ['google'] });
  });

  it('accepts a catalog search engine and says when its engine cannot be reached', async () => {
    const response = await postJson(test, url, { ...valid, search_engine: 'my-search' });
    assertPlatformError(response, { status: 500, code: '1234', mentions: ['my-search'] });
  });

  it('is served under every alias prefix', async () => {
    for (const prefix of ['/api/paas/v4', '/api/coding/paas/v4']) {
      const response = await postJson(test, `${prefix}/web_search`, { ...valid, count: 0 });
      assertPlatformError(response, { status: 400, code: '1214', mentions: ['count'] });
    }
  });
});
