import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

describe('GET /paas/v4/async-result/{id} contract', () => {
  let test: TestPlatform;
  before(async () => {
    test = await startTestPlatform();
  });
  after(() => test.close());

  const get = (url: string, headers: Record<string, string> = { authorization: test.authorization }) =>
    test.app.inject({ method: 'GET', url, headers });

  it('answers 404 in the platform shape for a task that does not exist', async () => {
    const response = await get('/paas/v4/async-result/task-20250101-abc');
    assertPlatformError(response, { status: 404, code: '404', mentions: ['task-20250101-abc'] });
    assert.equal(response.headers['x-should-retry'], 'false');
  });

  it('is served under every alias prefix', async () => {
    for (const prefix of ['/api/paas/v4', '/api/coding/paas/v4']) {
      const response = await get(`${prefix}/async-result/some-task-id`);
      assertPlatformError(response, { status: 404, code: '404', mentions: ['some-task-id'] });
    }
  });

  it('needs an API key', async () => {
    const response = await get('/paas/v4/async-result/some-task-id', {});
    assertPlatformError(response, { status: 401, code: '1001' });
  });

  it('refuses an invalid key', async () => {
    const response = await get('/paas/v4/async-result/some-task-id', { authorization: 'Bearer nope.nope' });
    assert.equal(response.statusCode, 401);
  });

  it('documents both result variants in the OpenAPI document', async () => {
    const response = await test.app.inject({ method: 'GET', url: '/openapi.json' });
    const document = response.json() as { paths: Record<string, { get?: { responses?: Record<string, unknown> } }> };
    const success = JSON.stringify(document.paths['/paas/v4/async-result/{id}']?.get?.responses?.['200']);
    for (const field of ['image_result', 'video_result', 'cover_image_url', 'task_status', 'PROCESSING']) {
      assert.ok(success.includes(field), `200 response should document ${field}: ${success}`);
    }
  });
});
