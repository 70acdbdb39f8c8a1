import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { readSettings } from '../../src/core/config/settings.ts';
import { openPlatform } from '../../src/platform/open-platform.ts';
import { captureLog, type LogLine } from '../helpers/captured-log.ts';
import { sseReply, startFakeOpenAiServer, vllmChunk, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { fastTuning, freePort } from '../tasks/task-test-kit.ts';

const url = '/paas/v4/chat/completions';
const prompt = 'a caller prompt that never reaches the logs';
const messages = [{ role: 'user', content: prompt }];
const atLeastWarn = (line: LogLine) => line.level >= 40;

describe('logs that explain failures (captured pino lines)', () => {
  const log = captureLog('info');
  let engine: FakeOpenAiServer;
  let downPort: number;
  let test: TestPlatform;
  let port: number;

  before(async () => {
    engine = await startFakeOpenAiServer();
    // Nothing listens there: an engine that cannot be reached.
    downPort = await freePort();
    test = await startTestPlatform({
      logger: log.logger,
      config: {
        models: {
          'glm-4.7': { backend: 'openai-compatible', baseUrl: engine.baseUrl, upstreamModel: 'zai-org/GLM' },
          'glm-down': { backend: 'openai-compatible', baseUrl: `http://127.0.0.1:${downPort}/v1`, upstreamModel: 'zai-org/GLM', apiKey: 'sk-engine-secret' },
        },
      },
    });
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    port = (test.app.server.address() as AddressInfo).port;
  });
  beforeEach(() => {
    engine.reset();
    log.lines.length = 0;
  });
  after(async () => {
    await test.close();
    await engine.close();
  });

  it('an unreachable engine: one error line with model, engine and cause; the request line carries status and code', async () => {
    const response = await postJson(test, url, { model: 'glm-down', messages, request_id: 'down-sync-0001' });
    assert.equal(response.statusCode, 500, response.body);
    const requestLine = await log.waitFor((line) => line['request_id'] === 'down-sync-0001' && line.msg === 'request completed');
    assert.equal(requestLine.level, 30);
    assert.equal(requestLine['status'], 500);
    assert.equal(requestLine['code'], '1234');
    assert.equal(requestLine['model'], 'glm-down');
    assert.equal(requestLine['route'], url);
    assert.equal(requestLine['method'], 'POST');
    assert.equal(requestLine['key_id'], test.key.split('.')[0]);
    assert.equal(typeof requestLine['duration_ms'], 'number');

    const failures = log.lines.filter(atLeastWarn);
    assert.equal(failures.length, 1, JSON.stringify(log.lines));
    const [failure] = failures as [LogLine];
    assert.equal(failure.level, 50);
    assert.equal(failure.msg, 'engine call failed');
    assert.equal(failure['model'], 'glm-down');
    assert.equal(failure['backend'], 'openai-compatible');
    assert.equal(failure['engine_host'], `127.0.0.1:${downPort}`);
    assert.equal(failure['capability'], 'chat');
    assert.equal(typeof failure['duration_ms'], 'number');
    const error = failure['error'] as { code: string; message: string };
    assert.equal(error.code, '1234');
    assert.match(error.message, /ECONNREFUSED/);

    const written = log.text();
    for (const secret of ['sk-engine-secret', test.key.split('.')[1] ?? '', prompt]) assert.ok(!written.includes(secret), `'${secret}' was logged`);
  });

  it('an engine stream that breaks mid-answer: one error line for the engine, the answer ends with network_error', async () => {
    engine.enqueue(sseReply([vllmChunk({ content: 'Hel' }), vllmChunk({ content: 'lo' })], { cutAfter: 2 }));
    const response = await postJson(test, url, { model: 'glm-4.7', messages, stream: true, request_id: 'cut-stream-0001' });
    assert.equal(response.statusCode, 200);
    assert.match(response.body, /network_error/);
    const requestLine = await log.waitFor((line) => line['request_id'] === 'cut-stream-0001' && line.msg === 'request completed');
    assert.equal(requestLine['status'], 200);
    const failures = log.lines.filter(atLeastWarn);
    assert.equal(failures.length, 1, JSON.stringify(log.lines));
    assert.equal(failures[0]?.msg, 'engine call failed');
    assert.equal(failures[0]?.['model'], 'glm-4.7');
    assert.equal((failures[0]?.['error'] as { type: string }).type, 'EngineConnectionError');
  });

  /** Sends a chat call on its own socket and leaves once `leaveWhen` resolves; resolves when the socket is gone. */
  async function leave(body: object, leaveWhen: (response: Promise<IncomingMessage>) => Promise<void>): Promise<void> {
    const payload = JSON.stringify(body);
    const request = httpRequest({
      host: '127.0.0.1',
      port,
      path: url,
      method: 'POST',
      headers: { authorization: test.authorization, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
    });
    request.on('error', () => undefined);
    const response = once(request, 'response').then(([message]) => message as IncomingMessage);
    response.catch(() => undefined);
    request.end(payload);
    await leaveWhen(response);
    request.destroy();
  }

  it('a client that leaves a sync call: an info line, no error', async () => {
    engine.enqueue({ kind: 'hang' });
    await leave({ model: 'glm-4.7', messages, request_id: 'leave-sync-0001' }, async () => {
      await waitUntil(() => engine.requests.length === 1);
    });
    const line = await log.waitFor((entry) => entry['request_id'] === 'leave-sync-0001');
    assert.equal(line.msg, 'client closed the connection');
    assert.equal(line.level, 30);
    assert.equal(line['status'], 499);
    // Whatever the engine call does once aborted is no error of the server's.
    await engine.waitForClientClose(0, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(log.lines.filter(atLeastWarn), []);
  });

  it('a client that leaves a stream: an info line, no error', async () => {
    const chunks = Array.from({ length: 50 }, () => vllmChunk({ content: 'word ' }));
    engine.enqueue(sseReply(chunks, { delayMs: 20 }));
    await leave({ model: 'glm-4.7', messages, stream: true, request_id: 'leave-stream-0001' }, async (response) => {
      const message = await response;
      await once(message, 'data');
    });
    const line = await log.waitFor((entry) => entry['request_id'] === 'leave-stream-0001');
    assert.equal(line.msg, 'client closed the connection');
    assert.equal(line.level, 30);
    await engine.waitForClientClose(0, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(log.lines.filter(atLeastWarn), []);
  });
});

describe('background failures (captured pino lines)', () => {
  it('a task handler that throws is one JSON line at error, nothing in plain text on stderr', async () => {
    const log = captureLog('info');
    const dataDir = mkdtempSync(join(tmpdir(), 'model-platform-logs-'));
    const environment = { MODEL_PLATFORM_DATA_DIR: dataDir };
    const platform = await openPlatform(readSettings(environment), environment, {
      logger: log.logger,
      taskHandlers: [
        {
          kind: 'image',
          run: () => Promise.reject(new TypeError('the handler has a bug')),
        },
      ],
      taskTuning: fastTuning,
    });
    const stderr: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      stderr.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof process.stderr.write;
    try {
      platform.startWorkers();
      const key = await platform.keys.create({ name: 'tasks' });
      await platform.tasks.submit({ kind: 'image', ownerKeyId: key.id, model: 'glm-image', requestId: 'task-bug-0001', request: {} });
      const line = await log.waitFor((entry) => entry.msg.includes('the handler failed unexpectedly'), 10_000);
      assert.equal(line.level, 50);
      const error = line['err'] as { type: string; message: string; stack: string };
      assert.equal(error.type, 'TypeError');
      assert.equal(error.message, 'the handler has a bug');
      assert.match(error.stack, /failure-logs\.test\.ts/);
      assert.deepEqual(stderr, []);
    } finally {
      process.stderr.write = write;
      await platform.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
