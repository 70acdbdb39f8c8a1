import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { formatApiKey } from '../../src/core/auth/api-key.ts';
import { ErrorBody } from '../../src/api/shared/common.schema.ts';
import { buildApp } from '../../src/platform/build-app.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

describe('error body and request_id on the wire', () => {
  let test: TestPlatform;
  before(async () => {
    test = await startTestPlatform();
  });
  after(() => test.close());

  it('answers an unknown route with 404 / 1222 in the platform body', async () => {
    const response = await test.app.inject({ method: 'GET', url: '/paas/v4/no-such-thing', headers: { authorization: test.authorization } });
    assertPlatformError(response, { status: 404, code: '1222', mentions: ['/paas/v4/no-such-thing'] });
  });

  it('answers a URL that does not decode with 1210 in the platform body, with a request id', async () => {
    const response = await test.app.inject({ method: 'GET', url: '/paas/v4/%zz', headers: { authorization: test.authorization } });
    assertPlatformError(response, { status: 400, code: '1210', mentions: ['not a valid url'] });
    assert.match(String(response.headers['x-request-id']), /^\d{14}[0-9a-f]{16}$/);
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const response = await test.app.inject({ method: 'DELETE', url: '/paas/v4/chat/completions', headers: { authorization: test.authorization } });
    assertPlatformError(response, { status: 405, code: '405', mentions: ['DELETE'] });
    assert.equal(response.headers['allow'], 'POST');
  });

  it('answers broken JSON, a JSON array and a foreign content type with 1210', async () => {
    const broken = await test.app.inject({
      method: 'POST',
      url: '/paas/v4/chat/completions',
      headers: { authorization: test.authorization, 'content-type': 'application/json' },
      payload: '{"model":',
    });
    assertPlatformError(broken, { status: 400, code: '1210' });
    const array = await postJson(test, '/paas/v4/chat/completions', [1, 2]);
    assertPlatformError(array, { status: 400, code: '1210', mentions: ['JSON object'] });
    const text = await test.app.inject({
      method: 'POST',
      url: '/paas/v4/chat/completions',
      headers: { authorization: test.authorization, 'content-type': 'text/plain' },
      payload: 'hello',
    });
    assertPlatformError(text, { status: 400, code: '1210', mentions: ['text/plain'] });
  });

  it('accepts the Python SDK content type with a charset', async () => {
    const response = await test.app.inject({
      method: 'POST',
      url: '/paas/v4/chat/completions',
      headers: { authorization: test.authorization, 'content-type': 'application/json; charset=UTF-8', 'accept-language': 'en-US,en' },
      payload: JSON.stringify({ model: 'glm-4.7', messages: [{ role: 'user', content: 'hi' }] }),
    });
    assertPlatformError(response, { status: 400, code: '1221' });
  });

  it('sends x-should-retry: false on errors that retrying cannot fix', async () => {
    const response = await postJson(test, '/paas/v4/chat/completions', { model: 'glm-4.7' });
    assert.equal(response.headers['x-should-retry'], 'false');
  });

  it("echoes the client's request_id and generates one otherwise", async () => {
    const echoed = await postJson(test, '/paas/v4/chat/completions', { model: 'glm-4.7', request_id: 'client-req-0001' });
    assert.equal(echoed.headers['x-request-id'], 'client-req-0001');
    const generated = await postJson(test, '/paas/v4/chat/completions', { model: 'glm-4.7' });
    const id = String(generated.headers['x-request-id']);
    assert.ok(id.length >= 6 && id.length <= 64, id);
  });

  it('answers other Accept-Language values in English', async () => {
    const response = await postJson(test, '/paas/v4/chat/completions', { model: 'glm-4.7' }, { 'accept-language': 'zh-CN' });
    assertPlatformError(response, { status: 400, code: '1213', mentions: ['Missing required parameter'] });
  });
});

describe('internal errors and logs', () => {
  it('never leaks a stack trace, and logs with request_id but without the key', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const base = await startTestPlatform();
    const app = await buildApp({ ...base.platform, logger: { level: 'info', stream }, onResponseMismatch: base.contract.report });
    // Declared like every platform route's error answer, so the response check covers this one too.
    app.post('/boom', { schema: { response: { 500: ErrorBody } } }, async () => {
      throw new Error('database password is hunter2');
    });
    try {
      const key = formatApiKey(await base.platform.keys.create({ name: 'logs' }));
      const response = await app.inject({
        method: 'POST',
        url: '/boom',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ request_id: 'log-check-42' }),
      });
      assertPlatformError(response, { status: 500, code: '500' });
      assert.ok(!response.body.includes('hunter2') && !response.body.includes('at '), response.body);
      const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      assert.ok(records.some((record) => record['request_id'] === 'log-check-42' && String(record['msg']).includes('unhandled')));
      const secret = key.split('.')[1] ?? '';
      assert.ok(!lines.some((line) => line.includes(secret)), 'the key secret never reaches the logs');
    } finally {
      await app.close();
      await base.close();
    }
  });
});
