import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError } from '../../src/core/config/config-error.ts';
import { readSettings } from '../../src/core/config/settings.ts';
import type { App } from '../../src/http/app-types.ts';
import { buildApp } from '../../src/platform/build-app.ts';
import { defaultServerLimits, serverLimitsFromSettings, type ServerLimits } from '../../src/http/server-limits.ts';
import { sseReply, startFakeOpenAiServer, vllmChunk, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { parseSseBody } from '../helpers/sse-events.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { assertRawPlatformError, completeResponse, openRawClient, parseRawResponse, rawExchange } from './raw-http.ts';

/** Short limits, so that each defence shows within a second or two. */
const shortLimits: ServerLimits = {
  headersTimeoutMs: 1000,
  requestTimeoutMs: 2500,
  bodyIdleTimeoutMs: 1000,
  keepAliveTimeoutMs: 1000,
  maxConnectionsPerAddress: 0,
};

const chatPath = '/paas/v4/chat/completions';

/** A defence that is missing shows as a connection that never closes: the test fails instead of hanging. */
const failAfter = { timeout: 15_000 };

describe('slow clients: timeouts and the per-address connection cap on a real socket', () => {
  let engine: FakeOpenAiServer;
  let test: TestPlatform;
  const apps: App[] = [];
  const logged: { level: number; msg: string }[] = [];

  /** An app over the test platform with these limits, listening on 127.0.0.1; its port. */
  async function listen(limits: ServerLimits): Promise<number> {
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) logged.push(JSON.parse(line) as { level: number; msg: string });
        callback();
      },
    });
    const app = await buildApp({ ...test.platform, logger: { level: 'warn', stream }, onResponseMismatch: test.contract.report }, limits);
    apps.push(app);
    await app.listen({ port: 0, host: '127.0.0.1' });
    return (app.server.address() as AddressInfo).port;
  }

  before(async () => {
    engine = await startFakeOpenAiServer();
    test = await startTestPlatform({
      config: { models: { 'glm-4.7': { backend: 'openai-compatible', baseUrl: engine.baseUrl, upstreamModel: 'zai-org/GLM' } } },
    });
  });
  after(async () => {
    for (const app of apps) await app.close();
    await test.close();
    await engine.close();
  });

  /** A plain request on its own connection, answered while slow clients hold theirs. */
  async function healthz(port: number): Promise<number> {
    const response = await fetch(`http://127.0.0.1:${port}/healthz`);
    await response.arrayBuffer();
    return response.status;
  }

  it('closes a client that trickles its headers with 408 in the platform body, serving others meanwhile', failAfter, async () => {
    const port = await listen(shortLimits);
    const slow = await openRawClient(port);
    slow.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const trickle = setInterval(() => slow.write('x'), 100);
    try {
      assert.equal(await healthz(port), 200);
      const closedAfter = await slow.closed;
      assert.ok(closedAfter >= 900 && closedAfter < 2500, `closed after ${closedAfter} ms`);
      assertRawPlatformError(slow.received(), { status: 408, code: '408' });
    } finally {
      clearInterval(trickle);
    }
  });

  it('closes a client whose body stops arriving with 408, and one that trickles it past the request timeout', failAfter, async () => {
    const port = await listen(shortLimits);
    const head = (length: number) =>
      `POST ${chatPath} HTTP/1.1\r\nHost: x\r\nAuthorization: ${test.authorization}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    // Stalled: part of the body, then nothing.
    const stalled = await openRawClient(port);
    stalled.write(`${head(100)}{"model":"glm-4.7",`);
    // Trickled: a byte every 100 ms keeps the body moving, but the whole request takes too long.
    const trickled = await openRawClient(port);
    trickled.write(`${head(1000)}{"model":"glm-4.7","messages":[{"role":"user","content":"`);
    const trickle = setInterval(() => trickled.write('a'), 100);
    try {
      assert.equal(await healthz(port), 200);
      const stalledAfter = await stalled.closed;
      assert.ok(stalledAfter >= 900 && stalledAfter < 2200, `stalled body closed after ${stalledAfter} ms`);
      assertRawPlatformError(stalled.received(), { status: 408, code: '408' });
      assert.equal(await healthz(port), 200);
      const trickledAfter = await trickled.closed;
      assert.ok(trickledAfter >= 2400 && trickledAfter < 4500, `trickled body closed after ${trickledAfter} ms`);
      assertRawPlatformError(trickled.received(), { status: 408, code: '408' });
    } finally {
      clearInterval(trickle);
    }
    assert.deepEqual(engine.requests, [], 'no engine call for a request that never arrived whole');
    await sleep(100);
    assert.deepEqual(
      logged.filter((record) => record.level >= 50),
      [],
      'nothing logged as an error',
    );
  });

  it('lets an answer run longer than every timeout: a stream with pauses over the idle timeout', failAfter, async () => {
    const port = await listen(shortLimits);
    engine.enqueue(sseReply([vllmChunk({ role: 'assistant', content: 'slow' }), vllmChunk({ content: ' answer' }), vllmChunk({}, 'stop')], { delayMs: 1200 }));
    const started = Date.now();
    const response = await fetch(`http://127.0.0.1:${port}${chatPath}`, {
      method: 'POST',
      headers: { authorization: test.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'glm-4.7', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(response.status, 200);
    const text = await response.text();
    assert.ok(Date.now() - started > shortLimits.requestTimeoutMs, 'the answer took longer than the request timeout');
    assert.equal(parseSseBody(text).length, 3, text);
    engine.reset();
  });

  it('closes an idle kept-alive connection after the keep-alive timeout', failAfter, async () => {
    const port = await listen(shortLimits);
    const client = await openRawClient(port);
    client.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.equal((await completeResponse(client)).status, 200);
    const answeredAt = Date.now();
    await client.closed;
    const idleFor = Date.now() - answeredAt;
    assert.ok(idleFor >= 800 && idleFor < 2500, `closed after ${idleFor} ms idle`);
  });

  it('refuses a connection over the per-address cap with 429 in the platform body, and serves again once one closes', failAfter, async () => {
    const port = await listen({ ...defaultServerLimits, maxConnectionsPerAddress: 3 });
    // Three kept-alive connections, each seen by the server (it answered on it).
    const held = await Promise.all([1, 2, 3].map(() => openRawClient(port)));
    for (const client of held) {
      client.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      assert.equal((await completeResponse(client)).status, 200);
    }
    const refused = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 3000);
    const response = assertRawPlatformError(refused, { status: 429, code: '1305' });
    assert.equal(response.headers.get('connection'), 'close');
    held[0]?.socket.destroy();
    await held[0]?.closed;
    let status = 0;
    for (let attempt = 0; attempt < 20 && status !== 200; attempt += 1) {
      const text = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 3000);
      status = parseRawResponse(text).status;
      if (status !== 200) await sleep(50);
    }
    assert.equal(status, 200, 'a connection is admitted again once one of the three closed');
    for (const client of held) client.socket.destroy();
  });
});

describe('server limit settings', () => {
  it('reads the timeouts and the cap from the environment, with defaults, in milliseconds for the server', () => {
    assert.deepEqual(serverLimitsFromSettings(readSettings({})), defaultServerLimits);
    const set = readSettings({
      MODEL_PLATFORM_HEADERS_TIMEOUT_SECONDS: '5',
      MODEL_PLATFORM_REQUEST_TIMEOUT_SECONDS: '60',
      MODEL_PLATFORM_BODY_IDLE_TIMEOUT_SECONDS: '0',
      MODEL_PLATFORM_KEEP_ALIVE_TIMEOUT_SECONDS: '10',
      MODEL_PLATFORM_MAX_CONNECTIONS_PER_ADDRESS: '50',
    });
    assert.deepEqual(serverLimitsFromSettings(set), {
      headersTimeoutMs: 5000,
      requestTimeoutMs: 60_000,
      bodyIdleTimeoutMs: 0,
      keepAliveTimeoutMs: 10_000,
      maxConnectionsPerAddress: 50,
    });
  });

  it('refuses a headers timeout over the request timeout, and values out of range, naming the variable', () => {
    assert.throws(
      () => readSettings({ MODEL_PLATFORM_HEADERS_TIMEOUT_SECONDS: '90', MODEL_PLATFORM_REQUEST_TIMEOUT_SECONDS: '60' }),
      (error: unknown) => error instanceof ConfigError && error.message.startsWith('MODEL_PLATFORM_HEADERS_TIMEOUT_SECONDS'),
    );
    assert.throws(() => readSettings({ MODEL_PLATFORM_KEEP_ALIVE_TIMEOUT_SECONDS: '0' }), ConfigError);
    assert.throws(() => readSettings({ MODEL_PLATFORM_MAX_CONNECTIONS_PER_ADDRESS: '-1' }), ConfigError);
  });
});
