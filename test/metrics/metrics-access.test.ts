import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { ApiError } from '../../src/core/errors/api-error.ts';
import { PlatformMetrics } from '../../src/core/metrics/platform-metrics.ts';
import { startOpsServer } from '../../src/http/ops-server.ts';
import { defaultServerLimits } from '../../src/http/server-limits.ts';
import { sqliteTarget } from '../helpers/test-databases.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { createTestDatabase, testTaskService, waitFor } from '../tasks/task-test-kit.ts';
import { platformWithEnvironment } from './platform-with-environment.ts';
import { parseScrape, valueOf } from './prometheus-scrape.ts';

describe('who may scrape, and what a worker serves', () => {
  it('wants the bearer token when MODEL_PLATFORM_METRICS_TOKEN is set (an API key is not it)', async () => {
    const test = await platformWithEnvironment({ MODEL_PLATFORM_METRICS_TOKEN: 'scrape-secret-1' });
    try {
      assertPlatformError(await test.app.inject({ method: 'GET', url: '/metrics' }), { status: 401, code: '1000', mentions: ['MODEL_PLATFORM_METRICS_TOKEN'] });
      const wrong = await test.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer scrape-secret-2' } });
      assertPlatformError(wrong, { status: 401, code: '1000' });
      const right = await test.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer scrape-secret-1' } });
      assert.equal(right.statusCode, 200);
      assert.match(right.body, /^# HELP model_platform_/m);
      assert.equal((await test.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'the probes stay open');
    } finally {
      await test.close();
    }
  });

  it('serves /healthz, /readyz and /metrics from a worker process (worker --port)', async () => {
    const test = await platformWithEnvironment({});
    const ops = await startOpsServer(test.platform, { port: 0, host: '127.0.0.1' }, defaultServerLimits);
    try {
      const origin = `http://127.0.0.1:${(ops.server.address() as AddressInfo).port}`;
      assert.deepEqual(await (await fetch(`${origin}/healthz`)).json(), { status: 'ok' });
      const ready = await fetch(`${origin}/readyz`);
      assert.equal(ready.status, 200);
      assert.equal(((await ready.json()) as { checks: { database: string } }).checks.database, 'ok');
      const metrics = await fetch(`${origin}/metrics`);
      assert.equal(metrics.status, 200);
      assert.ok(valueOf(parseScrape(await metrics.text()), 'model_platform_process_start_time_seconds', {}) !== undefined);
      assert.equal((await fetch(`${origin}/paas/v4/chat/completions`, { method: 'POST' })).status, 404, 'no API on the ops port');
      const overlong = await fetch(`${origin}/healthz?${'x'.repeat(20_000)}`);
      assert.equal(overlong.status, 431, 'the parser refusal is answered like the API server does');
      assert.equal(((await overlong.json()) as { error: { code: string } }).error.code, '431');
    } finally {
      await ops.close();
      await test.close();
    }
  });
});

describe('task outcomes', () => {
  it('counts each task a worker ends by kind and outcome: success, fail (not retried), timeout', async () => {
    const database = await createTestDatabase(sqliteTarget);
    const connection = await database.open();
    const metrics = new PlatformMetrics({ knownModels: [] });
    const service = testTaskService({
      database: connection,
      onTaskFinished: (kind, outcome) => metrics.taskFinished(kind, outcome),
      handlers: [
        {
          kind: 'image',
          async run(task, signal) {
            const request = task.request as { mode: string };
            if (request.mode === 'fail') throw new ApiError('1301', 'refused by the content filter');
            if (request.mode === 'hang') await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
            return { ok: true };
          },
        },
      ],
    });
    try {
      service.start();
      const submit = (mode: string, timeoutMs = 30_000) =>
        service.submit({ kind: 'image', ownerKeyId: 'k1', model: 'm', requestId: `r-${mode}`, request: { mode }, timeoutMs });
      await submit('ok');
      await submit('ok');
      await submit('fail');
      await submit('hang', 300);
      const read = async () => parseScrape(await metrics.render());
      // Generous: the timed-out task is only noticed by the lease sweep, slow on a loaded CI machine.
      const scrape = await waitFor(
        read,
        (current) => valueOf(current, 'model_platform_tasks_finished_total', { kind: 'image', outcome: 'timeout' }) === 1,
        60_000,
      );
      assert.equal(valueOf(scrape, 'model_platform_tasks_finished_total', { kind: 'image', outcome: 'success' }), 2);
      assert.equal(valueOf(scrape, 'model_platform_tasks_finished_total', { kind: 'image', outcome: 'fail' }), 1);
    } finally {
      await service.close();
      metrics.close();
      await connection.close();
      await database.drop();
    }
  });
});
