import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { modelPrefixes } from '../../src/api/register-api-routes.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

/** Served with no configuration: web search on the local index and layout parsing on PaddleOCR. */
const zeroConfig = ['glm-asr-2512', 'glm-edge-1.5b-chat', 'glm-ocr', 'search-prime', 'search_pro', 'search_pro_quark', 'search_pro_sogou', 'search_std'];

describe('GET /paas/v4/models and /models/{id}', () => {
  let test: TestPlatform;
  let base: string;
  let limitedKey: string;
  before(async () => {
    test = await startTestPlatform({
      config: {
        models: {
          'glm-4.7': { backend: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1' },
          'house-model': { backend: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1' },
        },
      },
    });
    // A listed name the server does not serve (glm-5) and one it serves without configuration.
    limitedKey = (await test.platform.keyAdmin.create({ policy: { models: ['house-model', 'search-prime', 'glm-5'] } })).key;
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`;
  });
  after(() => test.close());

  const get = (url: string, key = test.key) => test.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });

  it('lists the configured and the zero-configuration models, sorted, in the OpenAI list shape, under every model prefix', async () => {
    for (const prefix of modelPrefixes) {
      const response = await get(`${prefix}/models`);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json() as { object: string; data: { id: string; object: string; created: number; owned_by: string }[] };
      assert.equal(body.object, 'list');
      assert.deepEqual(
        body.data.map((model) => model.id),
        ['glm-4.7', ...zeroConfig, 'house-model'].sort(),
      );
      for (const model of body.data) {
        assert.deepEqual(Object.keys(model), ['id', 'object', 'created', 'owned_by']);
        assert.equal(model.object, 'model');
        assert.equal(model.owned_by, 'model-platform');
        assert.ok(Number.isInteger(model.created) && Math.abs(model.created - Date.now() / 1000) < 600, String(model.created));
      }
    }
  });

  it("lists exactly the served models a key's policy lets it call", async () => {
    const response = await get('/paas/v4/models', limitedKey);
    assert.deepEqual(
      (response.json() as { data: { id: string }[] }).data.map((model) => model.id),
      ['house-model', 'search-prime'],
    );
  });

  it('answers one model, and 404 for a model not served or not allowed to the key', async () => {
    const one = await get('/api/paas/v4/models/house-model', limitedKey);
    assert.equal(one.statusCode, 200, one.body);
    assert.equal((one.json() as { id: string }).id, 'house-model');
    assertPlatformError(await get('/paas/v4/models/glm-4.7', limitedKey), { status: 404, code: '404', mentions: ['glm-4.7'] });
    assertPlatformError(await get('/paas/v4/models/glm-5', limitedKey), { status: 404, code: '404', mentions: ['glm-5'] });
    assertPlatformError(await get('/paas/v4/models/no-such-model'), { status: 404, code: '404' });
  });

  it('needs a key', async () => {
    assertPlatformError(await test.app.inject({ method: 'GET', url: '/paas/v4/models' }), { status: 401, code: '1001' });
  });

  it('works through the openai SDK: models.list() and models.retrieve()', async () => {
    const client = new OpenAI({ apiKey: limitedKey, baseURL: `${base}/paas/v4/`, maxRetries: 0 });
    const listed: string[] = [];
    for await (const model of client.models.list()) listed.push(model.id);
    assert.deepEqual(listed, ['house-model', 'search-prime']);
    const retrieved = await client.models.retrieve('search-prime');
    assert.equal(retrieved.id, 'search-prime');
    assert.equal(retrieved.object, 'model');
    const error = await client.models.retrieve('glm-4.7').then(
      () => assert.fail('a model the key may not call was retrieved'),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof OpenAI.NotFoundError, String(error));
  });
});
