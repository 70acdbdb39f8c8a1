import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { startLlamaServer, type LlamaServer } from '../helpers/llama-server.ts';
import { describeWithLlamaServer } from '../helpers/real-engine-suite.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { writeTinyGlmGguf } from '../helpers/tiny-glm-gguf.ts';

/**
 * POST /paas/v4/tokenizer in front of a real llama.cpp `llama-server` (tiny model, GLM-4.7's real
 * chat template): the count must be what the chat call reports as usage.prompt_tokens for the
 * same messages, tools and thinking switch, whether the platform is told the engine's kind or
 * finds it out, and llama-server's older way (/apply-template, then /tokenize of the prompt) must
 * count the same.
 */
const alias = 'tiny-glm';
const messages = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'Hello there, what is the weather like in Paris today?' },
];
const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describeWithLlamaServer('tokenizer against a real llama-server (GLM-4.7 template, tiny model)', (binary) => {
  let engine: LlamaServer;
  let test: TestPlatform;

  before(async () => {
    engine = await startLlamaServer({ binary, modelPath: writeTinyGlmGguf(), alias });
    // Catalog names, not platform ones: the request's thinking switch holds as sent (glm-4.7 always thinks).
    const entry = { backend: 'openai-compatible' as const, baseUrl: engine.baseUrl, upstreamModel: alias };
    test = await startTestPlatform({ config: { models: { 'tiny-glm-told': { ...entry, engine: 'llama.cpp' }, 'tiny-glm-found': entry } } });
  });
  after(async () => {
    await test?.close();
    await engine?.stop();
  });

  async function promptTokens(url: string, body: Record<string, unknown>): Promise<number> {
    const response = await postJson(test, url, body);
    assert.equal(response.statusCode, 200, `${url}: ${response.body}\n${engine.log()}`);
    const count = (response.json() as { usage: { prompt_tokens: number } }).usage.prompt_tokens;
    assert.ok(Number.isInteger(count) && count > 0, `${url} counted ${count}`);
    return count;
  }

  it("counts the chat call's prompt_tokens, with and without tools, thinking on and off, told the kind or not", async () => {
    const withoutTools = new Map<string, number>();
    for (const model of ['tiny-glm-told', 'tiny-glm-found']) {
      for (const tools of [undefined, [weatherTool]]) {
        for (const type of ['enabled', 'disabled'] as const) {
          const request = { model, messages, thinking: { type }, ...(tools === undefined ? {} : { tools }) };
          const counted = await promptTokens('/paas/v4/tokenizer', request);
          const chatTokens = await promptTokens('/paas/v4/chat/completions', { ...request, max_tokens: 2, do_sample: false });
          assert.equal(counted, chatTokens, `${model}, tools ${tools !== undefined}, thinking ${type}`);
          if (tools === undefined) withoutTools.set(type, counted);
          else assert.ok(counted > (withoutTools.get(type) ?? Infinity), 'the tools are counted');
        }
      }
    }
  });

  it("counts the same as llama-server's /apply-template then /tokenize of the prompt (older servers' way)", async () => {
    const counted = await promptTokens('/paas/v4/tokenizer', { model: 'tiny-glm-told', messages, tools: [weatherTool], thinking: { type: 'disabled' } });
    const post = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
      const response = await fetch(`${engine.origin}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      assert.equal(response.status, 200, path);
      return (await response.json()) as Record<string, unknown>;
    };
    const { prompt } = await post('/apply-template', {
      model: alias,
      messages,
      tools: [weatherTool],
      tool_choice: 'auto',
      chat_template_kwargs: { enable_thinking: false },
    });
    assert.equal(typeof prompt, 'string');
    assert.match(String(prompt), /<\|assistant\|><\/think>$/, 'thinking off closes the think block');
    const { tokens } = await post('/tokenize', { content: prompt, add_special: true, parse_special: true });
    assert.ok(Array.isArray(tokens));
    assert.equal(tokens.length, counted);
    // What the platform used to send: llama-server reads no `messages` on /tokenize.
    const { tokens: ignored } = await post('/tokenize', { model: alias, messages, add_generation_prompt: true });
    assert.deepEqual(ignored, []);
  });
});
