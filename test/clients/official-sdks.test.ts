import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { ZhipuAI } from 'zhipuai-sdk-nodejs-v4';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

/** The official clients, unmodified, against a listening server on loopback. */
describe('official SDKs against the server', () => {
  let test: TestPlatform;
  let base: string;
  before(async () => {
    test = await startTestPlatform();
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`;
  });
  after(() => test.close());

  const messages = [{ role: 'user' as const, content: 'Hello' }];

  it('openai SDK surfaces 1211 for an unknown model', async () => {
    const client = new OpenAI({ apiKey: test.key, baseURL: `${base}/paas/v4/`, maxRetries: 0 });
    const error = await client.chat.completions.create({ model: 'no-such-model', messages }).then(
      () => assert.fail('the call succeeded'),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof OpenAI.BadRequestError, String(error));
    assert.equal(error.status, 400);
    assert.equal(error.code, '1211');
    assert.match(error.message, /no-such-model/);
  });

  it('openai SDK surfaces 1000 for a bad key, without retrying', async () => {
    const client = new OpenAI({ apiKey: `${test.key.split('.')[0]}.WrongSecret00000`, baseURL: `${base}/paas/v4/` });
    const error = await client.chat.completions.create({ model: 'glm-4.7', messages }).then(
      () => assert.fail('the call succeeded'),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof OpenAI.AuthenticationError, String(error));
    assert.equal(error.code, '1000');
  });

  it('openai SDK sees the no-engine answer for a platform model that is not configured', async () => {
    const client = new OpenAI({ apiKey: test.key, baseURL: `${base}/paas/v4/`, maxRetries: 0 });
    const error = await client.chat.completions.create({ model: 'glm-4.7', messages, stream: true }).then(
      () => assert.fail('the call succeeded'),
      (caught: unknown) => caught,
    );
    // A request error (400), which the SDKs do not retry and the Python SDKs name APIRequestFailedError.
    assert.ok(error instanceof OpenAI.BadRequestError, String(error));
    assert.equal(error.status, 400);
    assert.equal(error.code, '1221');
    assert.match(error.message, /models: \{ glm-4\.7: \{ alias: glm-edge-1\.5b-chat \}/);
  });

  it('zhipuai-sdk-nodejs-v4 (bare JWT with µs exp) surfaces 1211 for an unknown model', async () => {
    const client = new ZhipuAI({ apiKey: test.key, baseUrl: `${base}/paas/v4` });
    const rejection = await client.createCompletions({ model: 'no-such-model', messages, stream: false }).then(
      () => assert.fail('the call succeeded'),
      (caught: unknown) => caught as { error?: { code?: string; message?: string } },
    );
    assert.equal(rejection.error?.code, '1211');
    assert.match(String(rejection.error?.message), /no-such-model/);
  });

  it('zhipuai-sdk-nodejs-v4 surfaces 1004 for a key whose secret is wrong', async () => {
    const client = new ZhipuAI({ apiKey: `${test.key.split('.')[0]}.WrongSecret00000`, baseUrl: `${base}/paas/v4`, cacheToken: false });
    const rejection = await client.createCompletions({ model: 'glm-4.7', messages, stream: false }).then(
      () => assert.fail('the call succeeded'),
      (caught: unknown) => caught as { error?: { code?: string } },
    );
    assert.equal(rejection.error?.code, '1004');
  });
});
