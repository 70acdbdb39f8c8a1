import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { publicReason } from '../../src/core/health/public-reason.ts';
import { Readiness } from '../../src/core/health/readiness.ts';
import { startTestPlatform } from '../helpers/test-platform.ts';
import { freePort, isRedisInstalled, startRedis } from '../tasks/task-test-kit.ts';
import { platformWithEnvironment } from './platform-with-environment.ts';

interface ReadyBody {
  status: string;
  checks: Record<string, string | { error: string }>;
  error?: { code: string; message: string };
}

describe('GET /readyz asks the database, Redis and the object store', () => {
  it('is ready on SQLite and local blobs, with Redis not configured', async () => {
    const test = await startTestPlatform();
    try {
      const response = await test.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), {
        status: 'ready',
        database: 'sqlite',
        checks: { database: 'ok', redis: 'not configured', objectStore: 'ok', disk: 'ok' },
        // The default chat and transcription models' files, not fetched in tests: listed, and the node ready all the same.
        modelFiles: [
          { uri: 'hf://THUDM/glm-edge-1.5b-chat-gguf/ggml-model-Q4_K_M.gguf@main', state: 'missing' },
          { uri: 'hf://ggerganov/whisper.cpp/ggml-base.bin@main', state: 'missing' },
        ],
      });
      assert.deepEqual((await test.app.inject({ method: 'GET', url: '/healthz' })).json(), { status: 'ok' });
    } finally {
      await test.close();
    }
  });

  it('answers 503 naming the database once it no longer answers', async () => {
    const test = await startTestPlatform();
    try {
      await test.platform.database.close();
      const response = await test.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(response.statusCode, 503, response.body);
      const body = response.json() as ReadyBody;
      assert.equal(body.status, 'not ready');
      assert.equal(typeof body.checks['database'], 'object', JSON.stringify(body.checks));
      assert.equal(body.checks['objectStore'], 'ok');
      assert.match(body.error?.message ?? '', /^Not ready: database: \S/);
      assert.equal((await test.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'liveness does not depend on the database');
    } finally {
      await test.close();
    }
  });

  it('answers 503 naming the object store when its folder cannot be written', async () => {
    // A file where the blob folder should be: no directory can be made under it.
    const test = await platformWithEnvironment({}, (dataDir) => writeFileSync(join(dataDir, 'blobs'), 'not a folder'));
    try {
      const response = await test.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(response.statusCode, 503, response.body);
      const body = response.json() as ReadyBody;
      assert.equal(body.checks['database'], 'ok');
      assert.match(JSON.stringify(body.checks['objectStore']), /ENOTDIR|EEXIST|not a directory/i);
      assert.match(body.error?.message ?? '', /objectStore/);
    } finally {
      await test.close();
    }
  });

  it('answers 503 naming Redis when REDIS_URL points at a closed port', async () => {
    const closedPort = await freePort();
    const test = await platformWithEnvironment({ REDIS_URL: `redis://127.0.0.1:${closedPort}` });
    try {
      const started = Date.now();
      const response = await test.app.inject({ method: 'GET', url: '/readyz' });
      assert.ok(Date.now() - started < 3_000, 'the probe answers within the check time limit');
      assert.equal(response.statusCode, 503, response.body);
      const body = response.json() as ReadyBody;
      assert.equal(body.checks['database'], 'ok');
      assert.equal(body.checks['objectStore'], 'ok');
      assert.match(JSON.stringify(body.checks['redis']), /ECONNREFUSED|connect/i);
      assert.match(body.error?.message ?? '', /^Not ready: redis: /);
      // The probe is unauthenticated: where Redis lives stays out of the answer.
      assert.ok(!response.body.includes(String(closedPort)), response.body);
      assert.ok(!response.body.includes('127.0.0.1'), response.body);
    } finally {
      await test.close();
    }
  });

  it('is ready with a live Redis, and not once that Redis stops', { skip: !isRedisInstalled() }, async () => {
    const redis = await startRedis();
    assert.ok(redis !== undefined);
    const test = await platformWithEnvironment({ REDIS_URL: redis.url });
    try {
      const ready = await test.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 200, ready.body);
      assert.equal((ready.json() as ReadyBody).checks['redis'], 'ok');
      await redis.stop();
      const gone = await test.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(gone.statusCode, 503, gone.body);
      assert.equal(typeof (gone.json() as ReadyBody).checks['redis'], 'object');
    } finally {
      await test.close();
      await redis.stop();
    }
  });
});

describe('Readiness checks', () => {
  it('gives each check a time limit and reports the ones not configured as such', async () => {
    const readiness = new Readiness(
      [
        { name: 'slow', check: (signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))) },
        { name: 'fine', check: async () => undefined },
        { name: 'absent', check: undefined },
      ],
      100,
    );
    const started = Date.now();
    const report = await readiness.report();
    assert.ok(Date.now() - started < 1_000);
    assert.equal(report.ready, false);
    assert.deepEqual(report.checks, { slow: { error: 'no answer within 100 ms', detail: 'no answer within 100 ms' }, fine: 'ok', absent: 'not configured' });
  });
});

describe('publicReason', () => {
  it('takes addresses, hosts and URLs out of a failure and keeps the reason', () => {
    assert.equal(publicReason('connect ECONNREFUSED 10.1.2.3:5432'), 'connect ECONNREFUSED <address>');
    assert.equal(publicReason('connect ECONNREFUSED [fd00::1]:6379'), 'connect ECONNREFUSED <address>');
    assert.equal(publicReason('getaddrinfo ENOTFOUND minio.internal.example'), 'getaddrinfo ENOTFOUND <host>');
    assert.equal(publicReason('request to http://minio:9000/bucket failed'), 'request to <url> failed');
    assert.equal(publicReason('connect ETIMEDOUT db.internal:5432'), 'connect ETIMEDOUT <address>');
    assert.equal(publicReason('the data disk has 100 MB free'), 'the data disk has 100 MB free');
    assert.equal(publicReason('no answer within 2000 ms'), 'no answer within 2000 ms');
  });
});
