import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sseReply, startFakeOpenAiServer, vllmChunk, vllmCompletion, vllmError, vllmUsageChunk, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { assertHistogramSeries, parseScrape, samplesOf, valueOf, type Scrape } from './prometheus-scrape.ts';

const chatRoute = '/paas/v4/chat/completions';
const user = [{ role: 'user', content: 'Hello' }];

describe('GET /metrics after real requests (fake OpenAI-compatible engine on loopback)', () => {
  let engine: FakeOpenAiServer;
  let test: TestPlatform;
  let origin: string;
  before(async () => {
    engine = await startFakeOpenAiServer();
    test = await startTestPlatform({
      config: { models: { 'glm-4.7': { backend: 'openai-compatible', baseUrl: engine.baseUrl, upstreamModel: 'zai-org/GLM' } } },
    });
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await test.close();
    await engine.close();
  });

  const scrape = async (): Promise<Scrape> => {
    const response = await test.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    return parseScrape(response.body);
  };
  const requests = (labels: Record<string, string>) => valueOf(lastScrape, 'model_platform_http_requests_total', labels);
  let lastScrape: Scrape;

  it('counts requests by route pattern, model and status, times engine calls, counts tokens and engine errors', async () => {
    engine.enqueue({ kind: 'json', body: vllmCompletion({ content: 'Hi!', usage: { promptTokens: 12, completionTokens: 4, cachedTokens: 8 } }) });
    assert.equal((await postJson(test, chatRoute, { model: 'glm-4.7', messages: user })).statusCode, 200);
    engine.enqueue({ kind: 'json', body: vllmCompletion({ content: 'Again', usage: { promptTokens: 5, completionTokens: 2 } }) });
    assert.equal((await postJson(test, `/api${chatRoute}`, { model: 'glm-4.7', messages: user })).statusCode, 200);

    engine.enqueue(vllmError(500, 'CUDA out of memory', 'InternalServerError'));
    const failed = await postJson(test, chatRoute, { model: 'glm-4.7', messages: user });
    assert.ok(failed.statusCode >= 500, failed.body);
    const failedCode = (failed.json() as { error: { code: string } }).error.code;

    assert.equal((await postJson(test, chatRoute, { model: 'glm-4.7' })).statusCode, 400, 'messages missing');
    assert.equal((await postJson(test, chatRoute, { model: 'no-such-model-8172', messages: user })).statusCode, 400);
    assert.equal((await test.app.inject({ method: 'POST', url: chatRoute, payload: { model: 'glm-4.7', messages: user } })).statusCode, 401);
    const task = await test.app.inject({ method: 'GET', url: '/paas/v4/async-result/abc-123', headers: { authorization: test.authorization } });
    assert.equal(task.statusCode, 404);
    assert.equal((await test.app.inject({ method: 'GET', url: '/no/such/path', headers: { authorization: test.authorization } })).statusCode, 404);
    await test.app.inject({ method: 'GET', url: '/healthz' });

    lastScrape = await scrape();
    assert.equal(requests({ route: chatRoute, method: 'POST', model: 'glm-4.7', status: '200' }), 1);
    assert.equal(requests({ route: `/api${chatRoute}`, method: 'POST', model: 'glm-4.7', status: '200' }), 1, 'each prefix is its own route');
    assert.equal(requests({ route: chatRoute, method: 'POST', model: 'glm-4.7', status: String(failed.statusCode) }), 1);
    assert.equal(requests({ route: chatRoute, method: 'POST', model: 'glm-4.7', status: '400' }), 1);
    assert.equal(requests({ route: chatRoute, method: 'POST', model: 'other', status: '400' }), 1, 'unknown model names share one label');
    assert.equal(requests({ route: chatRoute, method: 'POST', model: '', status: '401' }), 1, 'refused before the body is read');
    assert.equal(requests({ route: '/paas/v4/async-result/:id', method: 'GET', model: '', status: '404' }), 1, 'the pattern, not the id');
    assert.equal(requests({ route: 'unmatched', method: 'GET', model: '', status: '404' }), 1);
    assert.equal(
      samplesOf(lastScrape, 'model_platform_http_requests_total').filter((sample) => /healthz|metrics/.test(sample.labels['route'] ?? '')).length,
      0,
    );
    assert.equal(
      samplesOf(lastScrape, 'model_platform_http_requests_total').some((sample) => sample.labels['model'] === 'no-such-model-8172'),
      false,
    );

    const timed = assertHistogramSeries(lastScrape, 'model_platform_http_request_duration_seconds', {
      route: chatRoute,
      method: 'POST',
      model: 'glm-4.7',
      status: '200',
    });
    assert.equal(timed.count, 1);
    assert.ok(timed.sum > 0);

    // The model's one deployment, named by its model and position: no engine address in a label.
    const deployment = 'glm-4.7#1';
    const engineCalls = assertHistogramSeries(lastScrape, 'model_platform_engine_call_duration_seconds', { model: 'glm-4.7', deployment, capability: 'chat' });
    assert.equal(engineCalls.count, 3, 'two answers and one failure');
    assert.equal(valueOf(lastScrape, 'model_platform_engine_errors_total', { model: 'glm-4.7', deployment, capability: 'chat', code: failedCode }), 1);

    assert.equal(valueOf(lastScrape, 'model_platform_tokens_total', { model: 'glm-4.7', kind: 'prompt' }), 17);
    assert.equal(valueOf(lastScrape, 'model_platform_tokens_total', { model: 'glm-4.7', kind: 'completion' }), 6);
    assert.equal(valueOf(lastScrape, 'model_platform_tokens_total', { model: 'glm-4.7', kind: 'cached' }), 8);

    const resident = valueOf(lastScrape, 'model_platform_process_resident_memory_bytes', {});
    assert.ok(resident !== undefined && resident > 10_000_000, `resident memory ${resident}`);
  });

  it('shows a stream in active_streams while it is open, and times it to its last event', async () => {
    engine.enqueue(
      sseReply(
        [vllmChunk({ role: 'assistant', content: 'Hel' }), vllmChunk({ content: 'lo' }, 'stop'), vllmUsageChunk({ promptTokens: 3, completionTokens: 2 })],
        { delayMs: 150 },
      ),
    );
    const response = await fetch(`${origin}${chatRoute}`, {
      method: 'POST',
      headers: { authorization: test.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'glm-4.7', messages: user, stream: true }),
    });
    assert.equal(response.status, 200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    lastScrape = await scrape();
    assert.equal(valueOf(lastScrape, 'model_platform_active_streams', { route: chatRoute }), 1);
    while (!(await reader.read()).done);
    // The server counts the request when its side of the connection closes.
    for (let attempt = 0; attempt < 50; attempt += 1) {
      lastScrape = await scrape();
      if (requests({ route: chatRoute, method: 'POST', model: 'glm-4.7', status: '200' }) === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(valueOf(lastScrape, 'model_platform_active_streams', { route: chatRoute }), 0);
    assert.equal(requests({ route: chatRoute, method: 'POST', model: 'glm-4.7', status: '200' }), 2);
    const streamed = assertHistogramSeries(lastScrape, 'model_platform_http_request_duration_seconds', {
      route: chatRoute,
      method: 'POST',
      model: 'glm-4.7',
      status: '200',
    });
    assert.ok(streamed.sum >= 0.4, `the stream took three delays of 150 ms: ${streamed.sum}`);
    assert.equal(valueOf(lastScrape, 'model_platform_tokens_total', { model: 'glm-4.7', kind: 'completion' }), 8);
  });

  it('counts a stream whose client left before its end as 499, and closes it in active_streams', async () => {
    engine.enqueue(
      sseReply(
        [vllmChunk({ role: 'assistant', content: 'Hel' }), vllmChunk({ content: 'lo' }, 'stop'), vllmUsageChunk({ promptTokens: 3, completionTokens: 2 })],
        { delayMs: 300 },
      ),
    );
    const leave = new AbortController();
    const response = await fetch(`${origin}${chatRoute}`, {
      method: 'POST',
      headers: { authorization: test.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'glm-4.7', messages: user, stream: true }),
      signal: leave.signal,
    });
    await (response.body as ReadableStream<Uint8Array>).getReader().read();
    leave.abort();
    const cutShort = { route: chatRoute, method: 'POST', model: 'glm-4.7', status: '499' };
    for (const until = Date.now() + 30_000; requests(cutShort) !== 1 && Date.now() < until;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      lastScrape = await scrape();
    }
    assert.equal(requests(cutShort), 1);
    assert.equal(requests({ route: chatRoute, method: 'POST', model: 'glm-4.7', status: '200' }), 2, 'not counted as answered');
    assert.equal(valueOf(lastScrape, 'model_platform_active_streams', { route: chatRoute }), 0);
  });

  it('reads the task queue depth from the database at scrape time', async () => {
    const ownerKeyId = test.key.split('.')[0] as string;
    for (const requestId of ['depth-1', 'depth-2']) {
      await test.platform.tasks.submit({ kind: 'image', ownerKeyId, model: 'cogview-4-250304', requestId, request: { prompt: 'x' } });
    }
    lastScrape = await scrape();
    // Workers were not started in this platform, so both wait in the queue.
    assert.equal(valueOf(lastScrape, 'model_platform_task_queue_depth', { kind: 'image', status: 'queued' }), 2);
  });
});
