import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { renderOpenApi } from '../../src/api/openapi.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

/** Every endpoint of the spec, as documented paths (aliases are served but hidden). */
const specEndpoints: [string, string][] = [
  ['post', '/paas/v4/chat/completions'],
  ['post', '/paas/v4/tokenizer'],
  ['post', '/paas/v4/images/generations'],
  ['post', '/paas/v4/async/images/generations'],
  ['post', '/paas/v4/videos/generations'],
  ['get', '/paas/v4/async-result/{id}'],
  ['post', '/paas/v4/web_search'],
  ['post', '/paas/v4/reader'],
  ['post', '/paas/v4/layout_parsing'],
  ['post', '/paas/v4/audio/transcriptions'],
  ['post', '/paas/v4/files'],
  ['get', '/paas/v4/files'],
  ['delete', '/paas/v4/files/{id}'],
  ['get', '/paas/v4/files/{id}/content'],
  ['post', '/v1/agents'],
  ['post', '/v1/agents/conversation'],
  ['post', '/v1/agents/async-result'],
];

describe('OpenAPI document', () => {
  let test: TestPlatform;
  before(async () => {
    test = await startTestPlatform();
    await test.app.ready();
  });
  after(() => test.close());

  it('matches the committed openapi.json (run `npm run openapi:write` after changing a schema)', () => {
    const committed = readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8');
    assert.ok(renderOpenApi(test.app) === committed, 'openapi.json is out of date: run `npm run openapi:write` and commit it');
  });

  it('is OpenAPI 3.1, served at /openapi.json, and documents every endpoint of the spec once', async () => {
    const response = await test.app.inject({ method: 'GET', url: '/openapi.json' });
    const document = response.json() as {
      openapi: string;
      paths: Record<string, Record<string, { requestBody?: unknown; responses?: Record<string, unknown> }>>;
    };
    assert.equal(document.openapi, '3.1.0');
    for (const [method, path] of specEndpoints) {
      const operation = document.paths[path]?.[method];
      assert.ok(operation !== undefined, `${method.toUpperCase()} ${path} is documented`);
      assert.ok(operation.responses?.['200'] !== undefined, `${method.toUpperCase()} ${path} documents its success body`);
    }
    assert.ok(!Object.keys(document.paths).some((path) => path.startsWith('/api/')), 'aliases stay out of the document');
  });

  it('serves the docs page', async () => {
    const response = await test.app.inject({ method: 'GET', url: '/docs' });
    assert.ok(response.statusCode === 200 || response.statusCode === 302, String(response.statusCode));
  });
});
