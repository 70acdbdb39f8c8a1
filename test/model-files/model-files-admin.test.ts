import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

describe('GET /admin/model-files', () => {
  let test: TestPlatform;
  let admin: string;
  before(async () => {
    test = await startTestPlatform({
      config: {
        models: {
          'tiny-chat': { backend: 'llama-cpp', modelPath: 'hf://tiny-org/tiny-gguf/tiny.gguf@v1' },
          'hub-tokenizer': { backend: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', tokenizerPath: 'hf://tiny-org/tiny-tokenizer/tokenizer.json' },
        },
      },
    });
    admin = `Bearer ${(await test.platform.keyAdmin.create({ name: 'ops', policy: { scope: 'admin' } })).key}`;
  });
  after(() => test.close());
  const post = (url: string, payload: object) =>
    test.app.inject({ method: 'POST', url, headers: { authorization: test.authorization, 'content-type': 'application/json' }, payload });

  it("lists the catalog's hf:// files with their state, for admin keys only", async () => {
    const listed = await test.app.inject({ method: 'GET', url: '/admin/model-files', headers: { authorization: admin } });
    assert.equal(listed.statusCode, 200, listed.body);
    const { data } = listed.json() as { data: Record<string, unknown>[] };
    assert.deepEqual(
      data.map(({ path: _path, ...rest }) => rest),
      [
        {
          uri: 'hf://THUDM/glm-edge-1.5b-chat-gguf/ggml-model-Q4_K_M.gguf@main',
          bytes: null,
          state: 'missing',
          downloaded_bytes: 0,
          total_bytes: null,
          error: null,
        },
        { uri: 'hf://ggerganov/whisper.cpp/ggml-base.bin@main', bytes: null, state: 'missing', downloaded_bytes: 0, total_bytes: null, error: null },
        { uri: 'hf://tiny-org/tiny-gguf/tiny.gguf@v1', bytes: null, state: 'missing', downloaded_bytes: 0, total_bytes: null, error: null },
        { uri: 'hf://tiny-org/tiny-tokenizer/tokenizer.json@main', bytes: null, state: 'missing', downloaded_bytes: 0, total_bytes: null, error: null },
      ],
    );
    assert.match(String(data[2]?.['path']), /models\/tiny-org--tiny-gguf\/v1\/tiny\.gguf$/);
    const refused = await test.app.inject({ method: 'GET', url: '/admin/model-files', headers: { authorization: test.authorization } });
    // Refused as every admin route refuses a key without the admin scope (its status is the admin API's).
    assert.ok(refused.statusCode >= 400, refused.body);
    assert.match(refused.body, /admin scope/);
  });

  it('a chat call to a model whose file is not fetched says how to fetch it', async () => {
    const response = await post('/paas/v4/chat/completions', { model: 'tiny-chat', messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(response.statusCode, 400);
    assert.match(
      response.json<{ error: { message: string } }>().error.message,
      /has not downloaded hf:\/\/tiny-org\/tiny-gguf\/tiny\.gguf@v1 yet .*model-platform pull/,
    );
  });

  it('a tokenizerPath on the hub that is not fetched yet: the tokenizer says so', async () => {
    const response = await post('/paas/v4/tokenizer', { model: 'hub-tokenizer', messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(response.statusCode, 400);
    assert.match(
      response.json<{ error: { message: string } }>().error.message,
      /cannot be loaded: the platform has not downloaded hf:\/\/tiny-org\/tiny-tokenizer\/tokenizer\.json@main yet/,
    );
  });
});
