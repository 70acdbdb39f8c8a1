import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { modelEntrySchema } from '../../src/backends/index.ts';
import { ModelResolver } from '../../src/core/models/model-resolver.ts';
import { parseConfigText } from '../../src/core/config/load-config.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

/**
 * The caller's `model` field is looked up in the operator's catalog: names that every plain
 * object inherits must find nothing, on every route that takes a model.
 */
const inheritedNames = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

describe('caller-chosen model names never reach a prototype', () => {
  let test: TestPlatform;
  before(async () => {
    test = await startTestPlatform({ config: { models: { 'glm-4.7': { backend: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1' } } } });
  });
  after(() => test.close());

  const routes: [string, (model: string) => unknown][] = [
    ['/paas/v4/chat/completions', (model) => ({ model, messages: [{ role: 'user', content: 'hi' }] })],
    ['/paas/v4/tokenizer', (model) => ({ model, messages: [{ role: 'user', content: 'hi' }] })],
    ['/paas/v4/images/generations', (model) => ({ model, prompt: 'a cat' })],
    ['/paas/v4/videos/generations', (model) => ({ model, prompt: 'a cat' })],
    ['/paas/v4/layout_parsing', (model) => ({ model, file: 'https://example.com/a.png' })],
  ];
  for (const [url, body] of routes) {
    it(`${url} answers 1211 for inherited names`, async () => {
      for (const model of inheritedNames) {
        assertPlatformError(await postJson(test, url, body(model)), { status: 400, code: '1211' });
      }
    });
  }

  it('the resolver and the loaded catalog have no inherited entries', () => {
    const config = parseConfigText('models:\n  glm-4.7: { backend: zai, apiKey: key }', 'config.yaml', {}, modelEntrySchema);
    for (const model of inheritedNames) {
      assert.equal(config.models?.[model], undefined, model);
      assert.throws(() => new ModelResolver(config.models ?? {}).resolve(model, 'chat'), /Unknown Model/);
    }
  });
});
