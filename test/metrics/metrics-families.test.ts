import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { sseReply, startFakeOpenAiServer, vllmChunk, vllmCompletion, vllmError, vllmUsageChunk, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { parseScrape, type Scrape } from './prometheus-scrape.ts';

/**
 * The families GET /metrics serves, as dashboards and alerts depend on them: each family's name,
 * type and help, the names of its samples (`_bucket`, `_sum`, `_count` of a histogram) and the
 * label names each carries. Label values are left out (they are the operator's model and
 * deployment names). The expectation, fixtures/metrics-families.json, was written from the
 * platform's own registry before the registry moved to prom-client; a change in the metrics a
 * scraper sees shows up as its diff. Rewrite it after a deliberate change with
 * `UPDATE_FIXTURE_EXPECTATIONS=1 node --import tsx --test test/metrics/metrics-families.test.ts`.
 */
const expectationFile = new URL('./fixtures/metrics-families.json', import.meta.url);
const chatRoute = '/paas/v4/chat/completions';
const user = [{ role: 'user', content: 'Hello' }];

interface FamilySignature {
  readonly name: string;
  readonly type: string;
  readonly help: string;
  /** Each sample name of the family and the label names its series carry (sorted). */
  readonly samples: Readonly<Record<string, readonly string[]>>;
  /** A histogram's bucket bounds (`le`), which histogram_quantile reads. */
  readonly buckets?: readonly string[];
}

function familySignatures(scrape: Scrape): FamilySignature[] {
  return [...scrape.types.entries()]
    .map(([name, type]) => {
      const samples = new Map<string, Set<string>>();
      for (const sample of scrape.samples) {
        if (sample.name !== name && !(type === 'histogram' && [`${name}_bucket`, `${name}_sum`, `${name}_count`].includes(sample.name))) continue;
        const labels = samples.get(sample.name) ?? new Set<string>();
        for (const label of Object.keys(sample.labels)) labels.add(label);
        samples.set(sample.name, labels);
      }
      const sorted = [...samples.entries()].sort(([left], [right]) => left.localeCompare(right));
      const signature = {
        name,
        type,
        help: scrape.helps.get(name) ?? '',
        samples: Object.fromEntries(sorted.map(([sample, labels]) => [sample, [...labels].sort()])),
      };
      if (type !== 'histogram') return signature;
      const bounds = new Set(scrape.samples.filter((sample) => sample.name === `${name}_bucket`).map((sample) => sample.labels['le'] ?? ''));
      return { ...signature, buckets: [...bounds] };
    })
    .sort((left, right) => left.name.localeCompare(right.name));
}

describe('GET /metrics: families, types, help and label names', () => {
  let engine: FakeOpenAiServer;
  let test: TestPlatform;
  before(async () => {
    engine = await startFakeOpenAiServer();
    test = await startTestPlatform({
      config: { models: { 'glm-4.7': { backend: 'openai-compatible', baseUrl: engine.baseUrl, upstreamModel: 'zai-org/GLM' } } },
    });
  });
  after(async () => {
    await test.close();
    await engine.close();
  });

  it('serves every family with the types, help and label names the platform has always served', async () => {
    // A call of each kind that reaches a family: a whole answer, a stream, an engine failure, a queued task, a finished one.
    engine.enqueue({ kind: 'json', body: vllmCompletion({ content: 'Hi!', usage: { promptTokens: 12, completionTokens: 4, cachedTokens: 8 } }) });
    assert.equal((await postJson(test, chatRoute, { model: 'glm-4.7', messages: user })).statusCode, 200);
    engine.enqueue(sseReply([vllmChunk({ content: 'Hi' }), vllmChunk({}, 'stop'), vllmUsageChunk({ promptTokens: 3, completionTokens: 1 })]));
    assert.equal((await postJson(test, chatRoute, { model: 'glm-4.7', messages: user, stream: true })).statusCode, 200);
    engine.enqueue(vllmError(500, 'CUDA out of memory', 'InternalServerError'));
    assert.ok((await postJson(test, chatRoute, { model: 'glm-4.7', messages: user })).statusCode >= 500);
    const ownerKeyId = test.key.split('.')[0] as string;
    await test.platform.tasks.submit({ kind: 'image', ownerKeyId, model: 'cogview-4-250304', requestId: 'families-1', request: { prompt: 'x' } });
    test.platform.metrics.taskFinished('image', 'success');

    const response = await test.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    const families = familySignatures(parseScrape(response.body));
    if (process.env['UPDATE_FIXTURE_EXPECTATIONS'] === '1') writeFileSync(expectationFile, `${JSON.stringify(families, null, 2)}\n`);
    assert.ok(existsSync(expectationFile), 'fixtures/metrics-families.json is missing');
    assert.deepStrictEqual(families, JSON.parse(readFileSync(expectationFile, 'utf8')));
  });
});
