import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { App } from '../../src/http/app-types.ts';
import { buildApp } from '../../src/platform/build-app.ts';
import { defaultServerLimits } from '../../src/http/server-limits.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { startFakeOpenAiServer, vllmCompletion, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { startFakeOpenAiTranscriptionServer, type FakeOpenAiTranscriptionServer } from '../helpers/fake-openai-transcription-server.ts';
import { postForm } from '../helpers/multipart-form.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { assertRawPlatformError, rawExchange } from './raw-http.ts';

const chatPath = '/paas/v4/chat/completions';
const messages = [{ role: 'user', content: 'Hello' }];
const generatedId = /^\d{14}[0-9a-f]{16}$/;

describe('one error shape for every answer the server writes', () => {
  let chatEngine: FakeOpenAiServer;
  let asrEngine: FakeOpenAiTranscriptionServer;
  let test: TestPlatform;
  let app: App;
  let port: number;

  before(async () => {
    [chatEngine, asrEngine] = await Promise.all([startFakeOpenAiServer(), startFakeOpenAiTranscriptionServer('hello')]);
    test = await startTestPlatform({
      config: {
        models: {
          'glm-4.7': { backend: 'openai-compatible', baseUrl: chatEngine.baseUrl, upstreamModel: 'zai-org/GLM' },
          'my-asr': { backend: 'openai-transcription', baseUrl: asrEngine.baseUrl, upstreamModel: 'whisper-small' },
        },
      },
    });
    // A short body idle timeout, so the Content-Length mismatch is answered quickly.
    app = await buildApp({ ...test.platform, logger: false, onResponseMismatch: test.contract.report }, { ...defaultServerLimits, bodyIdleTimeoutMs: 500 });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  beforeEach(() => {
    chatEngine.reset();
    asrEngine.reset();
  });
  after(async () => {
    await app.close();
    await test.close();
    await Promise.all([chatEngine.close(), asrEngine.close()]);
  });

  describe('requests the HTTP parser or the server refuses, on a raw socket', () => {
    const auth = () => `Authorization: ${test.authorization}\r\n`;
    const cases: { name: string; request: () => string | Buffer; status: number; code: string }[] = [
      { name: 'a URL over 16 KB', request: () => `GET /paas/v4/files?after=${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`, status: 431, code: '431' },
      {
        name: 'a header over the limit',
        request: () => `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20 * 1024)}\r\n\r\n`,
        status: 431,
        code: '431',
      },
      { name: 'a malformed header line', request: () => 'GET /healthz HTTP/1.1\r\nHost: x\r\nthis is not a header\r\n\r\n', status: 400, code: '1210' },
      {
        name: 'bad chunked encoding',
        request: () =>
          `POST ${chatPath} HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
        status: 400,
        code: '1210',
      },
      {
        name: 'an invalid Content-Length',
        request: () => `POST ${chatPath} HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nContent-Length: 12abc\r\n\r\n{}`,
        status: 400,
        code: '1210',
      },
      {
        name: 'both Content-Length and chunked',
        request: () =>
          `POST ${chatPath} HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
        status: 400,
        code: '1210',
      },
      {
        name: 'a body shorter than its Content-Length (it stops arriving)',
        request: () => `POST ${chatPath} HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nContent-Length: 500\r\n\r\n{"model":"glm-4.7"}`,
        status: 408,
        code: '408',
      },
      {
        name: 'a body over the limit',
        request: () => `POST ${chatPath} HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n{`,
        status: 400,
        code: '1210',
      },
      { name: 'an unknown method', request: () => 'BREW /healthz HTTP/1.1\r\nHost: x\r\n\r\n', status: 400, code: '1210' },
      { name: 'an HTTP/1.1 request without Host', request: () => 'GET /healthz HTTP/1.1\r\n\r\n', status: 400, code: '1210' },
      { name: 'binary garbage (a TLS hello on the plain port)', request: () => Buffer.from('16030100a5010000a103035f', 'hex'), status: 400, code: '1210' },
      { name: 'an HTTP/2 preface', request: () => 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', status: 400, code: '1210' },
    ];
    for (const testCase of cases) {
      it(`answers ${testCase.name} with ${testCase.status} / ${testCase.code} in the platform body`, async () => {
        const text = await rawExchange(port, testCase.request());
        assertRawPlatformError(text, { status: testCase.status, code: testCase.code });
      });
    }

    it('serves the next client normally after all of that', async () => {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(response.status, 200);
      await response.arrayBuffer();
    });
  });

  describe('caller values quoted in messages are cut short', () => {
    it('answers a 7 MB model name with a short message', async () => {
      const response = await postJson(test, chatPath, { model: 'm'.repeat(7 * 1024 * 1024), messages });
      assertPlatformError(response, { status: 400, code: '1211' });
      const message = (response.json() as { error: { message: string } }).error.message;
      assert.ok(message.length < 600, `message of ${message.length} characters`);
      assert.ok(message.includes(`'${'m'.repeat(64)}…'`), message.slice(0, 200));
      assert.deepEqual(chatEngine.requests, []);
    });

    it('cuts a long Content-Type and a long undecodable URL part in their messages', async () => {
      const contentType = `application/x-${'c'.repeat(5000)}`;
      const response = await test.app.inject({
        method: 'POST',
        url: chatPath,
        headers: { authorization: test.authorization, 'content-type': contentType },
        payload: 'x',
      });
      assertPlatformError(response, { status: 400, code: '1210' });
      assert.ok(response.body.length < 400, response.body.slice(0, 200));
      const url = await test.app.inject({ method: 'GET', url: `/paas/v4/files/${'%zz'.repeat(3000)}`, headers: { authorization: test.authorization } });
      assertPlatformError(url, { status: 400, code: '1210', mentions: ['not a valid url'] });
      assert.ok(url.body.length < 400, url.body.slice(0, 200));
    });
  });

  describe('request_id and user_id are checked before anything else runs', () => {
    const badRequestIds: { name: string; value: string }[] = [
      { name: 'with CR/LF', value: 'abc\r\nx-injected: 1' },
      { name: 'with characters outside Latin-1', value: 'запрос-000001' },
      { name: 'with Latin-1 letters outside the safe set', value: 'héllo-wörld' },
      { name: 'with a space', value: 'request 000001' },
      { name: 'too long', value: 'r'.repeat(65) },
      { name: 'too short', value: 'abc' },
    ];
    for (const { name, value } of badRequestIds) {
      it(`refuses a JSON request_id ${name} with 1214 before the engine is called, keeping the generated x-request-id`, async () => {
        const response = await postJson(test, chatPath, { model: 'glm-4.7', messages, request_id: value });
        assertPlatformError(response, { status: 400, code: '1214', mentions: ['request_id'] });
        assert.match(String(response.headers['x-request-id']), generatedId);
        assert.ok(!response.body.includes(value), 'the value is not echoed');
        assert.deepEqual(chatEngine.requests, []);
      });
    }

    it('refuses a user_id with control characters, and one too long, with 1214 naming user_id', async () => {
      for (const userId of ['user\n000001', 'u'.repeat(129)]) {
        const response = await postJson(test, chatPath, { model: 'glm-4.7', messages, user_id: userId });
        assertPlatformError(response, { status: 400, code: '1214', mentions: ['user_id'] });
      }
      assert.deepEqual(chatEngine.requests, []);
    });

    it('refuses a bad request_id in a multipart form before the engine is called', async () => {
      const audio = Buffer.from('RIFF....WAVEfmt fake audio bytes');
      for (const requestId of ['abc\r\ndefgh', 'запрос-000001']) {
        const response = await postForm(test, '/paas/v4/audio/transcriptions', [
          ['model', 'my-asr'],
          ['request_id', requestId],
          ['file', audio, 'speech.wav', 'audio/wav'],
        ]);
        assertPlatformError(response, { status: 400, code: '1214', mentions: ['request_id'] });
        assert.match(String(response.headers['x-request-id']), generatedId);
      }
      assert.deepEqual(asrEngine.received, []);
    });

    it('adopts the ids clients generate: a UUID, time.time() as text, prefix-millis', async () => {
      for (const requestId of ['0b6f3c1e-2d4a-4c8e-9f10-3a5b7c9d1e2f', '1712345678.123456', 'mycompany-1712345678901', 'req_abc:42']) {
        chatEngine.enqueue({ kind: 'json', body: vllmCompletion({ content: 'Hi' }) });
        const response = await postJson(test, chatPath, { model: 'glm-4.7', messages, request_id: requestId, user_id: 'user+tag@example.com' });
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(response.headers['x-request-id'], requestId);
        assert.equal((response.json() as { request_id: string }).request_id, requestId);
      }
    });
  });
});
