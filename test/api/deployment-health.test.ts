import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeOpenAiServer, vllmCompletion, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { parseScrape, valueOf } from '../metrics/prometheus-scrape.ts';
import { freePort } from '../tasks/task-test-kit.ts';

/**
 * A dead deployment as every surface shows it: a model with a live engine and a closed port (tried
 * first), one model with only the dead one. After a call each, /metrics, /readyz and the admin API
 * name the dead deployment; /readyz names no address.
 */
describe('deployment health in /metrics, /readyz and GET /admin/deployments', () => {
  let engine: FakeOpenAiServer;
  let test: TestPlatform;
  let admin: string;
  let deadPort: number;
  const user = [{ role: 'user', content: 'Hello' }];

  before(async () => {
    engine = await startFakeOpenAiServer();
    engine.setDefault({ kind: 'json', body: vllmCompletion({ content: 'Hi!', usage: { promptTokens: 3, completionTokens: 2 } }) });
    deadPort = await freePort();
    const dead = { backend: 'openai-compatible', baseUrl: `http://127.0.0.1:${deadPort}/v1`, upstreamModel: 'fake/model' } as const;
    test = await startTestPlatform({
      config: {
        models: {
          'glm-4.7': {
            routing: 'priority',
            deployments: [
              { ...dead, priority: 0 },
              { name: 'live', backend: 'openai-compatible', baseUrl: engine.baseUrl, upstreamModel: 'fake/model', priority: 1 },
            ],
          },
          'glm-gone': dead,
        },
      },
    });
    admin = `Bearer ${(await test.platform.keyAdmin.create({ name: 'ops', policy: { scope: 'admin' } })).key}`;
  });
  after(async () => {
    await test.close();
    await engine.close();
  });

  const readyz = async () => {
    const response = await test.app.inject({ method: 'GET', url: '/readyz' });
    return { status: response.statusCode, body: response.json() as Record<string, unknown>, text: response.body };
  };

  it('is ready and lists nothing while every deployment is healthy', async () => {
    const { status, body } = await readyz();
    assert.equal(status, 200);
    assert.equal(body['deployments'], undefined);
  });

  it('fails over from the dead deployment, and every surface names it', async () => {
    const served = await postJson(test, '/paas/v4/chat/completions', { model: 'glm-4.7', messages: user });
    assert.equal(served.statusCode, 200, served.body);
    assert.equal(served.headers['x-model-platform-deployment'], 'live');
    const deadAddress = `127.0.0.1:${deadPort}`;

    // Ready: glm-4.7 still has a healthy deployment; the dead one is listed, its address masked.
    let ready = await readyz();
    assert.equal(ready.status, 200, ready.text);
    const listed = ready.body['deployments'] as { modelsWithoutHealthy: string[]; notHealthy: Record<string, unknown>[] };
    assert.deepEqual(listed.modelsWithoutHealthy, []);
    assert.equal(listed.notHealthy.length, 1);
    assert.equal(listed.notHealthy[0]?.['model'], 'glm-4.7');
    assert.equal(listed.notHealthy[0]?.['position'], 1);
    assert.equal(listed.notHealthy[0]?.['state'], 'cooling-down');
    assert.ok(!ready.text.includes('127.0.0.1') && !ready.text.includes(String(deadPort)), ready.text);

    // Not ready once a model has no healthy deployment left.
    const failed = await postJson(test, '/paas/v4/chat/completions', { model: 'glm-gone', messages: user });
    assert.ok(failed.statusCode >= 500, failed.body);
    ready = await readyz();
    assert.equal(ready.status, 503, ready.text);
    assert.match((ready.body['error'] as { message: string }).message, /no healthy deployment of glm-gone/);
    assert.ok(!ready.text.includes(String(deadPort)), ready.text);

    const scrape = parseScrape((await test.app.inject({ method: 'GET', url: '/metrics' })).body);
    const labels = (model: string, deployment: string) => ({ model, deployment, backend: 'openai-compatible' });
    assert.equal(valueOf(scrape, 'model_platform_deployment_healthy', labels('glm-4.7', 'glm-4.7#1')), 0);
    assert.equal(valueOf(scrape, 'model_platform_deployment_healthy', labels('glm-4.7', 'live')), 1);
    assert.equal(valueOf(scrape, 'model_platform_deployment_healthy', labels('glm-gone', 'glm-gone#1')), 0);
    assert.equal(valueOf(scrape, 'model_platform_deployment_in_flight', labels('glm-4.7', 'live')), 0);
    const served200 = scrape.samples.filter(
      (sample) => sample.name === 'model_platform_engine_call_duration_seconds_count' && sample.labels['deployment'] === 'live',
    );
    assert.equal(served200[0]?.value, 1, 'the engine series carry the deployment');
    assert.ok(
      scrape.samples.some((sample) => sample.name === 'model_platform_engine_errors_total' && sample.labels['deployment'] === 'glm-4.7#1' && sample.value >= 1),
      'the dead deployment counted its error',
    );

    const list = await test.app.inject({ method: 'GET', url: '/admin/deployments', headers: { authorization: admin } });
    assert.equal(list.statusCode, 200, list.body);
    const rows = (list.json() as { object: string; data: Record<string, unknown>[] }).data;
    assert.deepEqual(
      rows.map((row) => [row['model'], row['deployment'], row['address'], row['state']]),
      [
        ['glm-4.7', 'glm-4.7#1', deadAddress, 'cooling-down'],
        ['glm-4.7', 'live', new URL(engine.baseUrl).host, 'healthy'],
        ['glm-gone', 'glm-gone#1', deadAddress, 'cooling-down'],
      ],
    );
    assert.equal(typeof rows[0]?.['cooling_until'], 'number');
    assert.match(String(rows[0]?.['last_error']), /ECONNREFUSED|refused/i);
  });

  it('keeps the admin list from keys without the admin scope', async () => {
    const plain = `Bearer ${(await test.platform.keyAdmin.create({ name: 'plain' })).key}`;
    const refused = await test.app.inject({ method: 'GET', url: '/admin/deployments', headers: { authorization: plain } });
    assert.equal((refused.json() as { error: { code: string } }).error.code, '1220', refused.body);
  });
});
