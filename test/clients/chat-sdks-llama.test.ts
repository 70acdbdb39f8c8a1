import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { ZhipuAI } from 'zhipuai-sdk-nodejs-v4';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { writeTinyGguf } from '../helpers/tiny-gguf.ts';

/**
 * The official clients on our server in front of the real llama.cpp engine (a tiny random-weight
 * GGUF the suite writes): the text is noise, so the checks are on shapes, finish reasons, counts
 * and tool calls that validate against the declared schema.
 */
const messages = [{ role: 'user' as const, content: 'Hello there' }];
const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string', maxLength: 12 } }, required: ['city'], additionalProperties: false },
  },
};

describe('official SDKs on chat completions (llama-cpp engine, tiny GGUF)', () => {
  let test: TestPlatform;
  let base: string;
  before(async () => {
    test = await startTestPlatform({
      config: { models: { 'glm-4.6': { backend: 'llama-cpp', modelPath: writeTinyGguf(), threads: 1, contextSize: 1024, parallelSequences: 2 } } },
    });
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`;
  });
  after(() => test.close());

  const openai = () => new OpenAI({ apiKey: test.key, baseURL: `${base}/paas/v4/`, maxRetries: 0 });

  it('openai SDK: sync, ending at max_tokens with finish_reason length', async () => {
    const completion = await openai().chat.completions.create({
      model: 'glm-4.6',
      messages,
      max_tokens: 8,
      temperature: 0.5,
      thinking: { type: 'disabled' },
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    assert.equal(typeof completion.choices[0]?.message.content, 'string');
    assert.ok(['length', 'stop'].includes(String(completion.choices[0]?.finish_reason)));
    if (completion.choices[0]?.finish_reason === 'length') assert.equal(completion.usage?.completion_tokens, 8);
    assert.ok((completion.usage?.prompt_tokens ?? 0) > 0);
  });

  it('openai SDK: stream', async () => {
    const stream = await openai().chat.completions.create({
      model: 'glm-4.6',
      messages,
      max_tokens: 6,
      stream: true,
      do_sample: false,
    } as OpenAI.ChatCompletionCreateParamsStreaming);
    let chunks = 0;
    let finish: string | null | undefined;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      chunks += 1;
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    assert.ok(chunks >= 2);
    assert.equal(finish, 'length', 'greedy decoding of the tiny model does not end early');
    assert.equal(usage?.completion_tokens, 6);
  });

  it('openai SDK: tools give a valid call of the declared tool', async () => {
    // Random weights may sample a call that breaks the schema; the engine then refuses it (500)
    // rather than return it. Whatever it does return must be a valid call: try a few seeds.
    let checked = 0;
    for (let seed = 1; seed <= 5 && checked === 0; seed += 1) {
      const completion = await openai()
        .chat.completions.create({ model: 'glm-4.6', messages, tools: [weatherTool], max_tokens: 256, seed })
        .catch((error: unknown) => {
          assert.ok(error instanceof OpenAI.InternalServerError, String(error));
          return undefined;
        });
      if (completion === undefined) continue;
      const choice = completion.choices[0];
      assert.equal(choice?.finish_reason, 'tool_calls');
      const call = choice?.message.tool_calls?.[0];
      assert.ok(call?.type === 'function');
      assert.equal(call.function.name, 'get_weather');
      const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
      assert.deepEqual(Object.keys(args), ['city']);
      assert.equal(typeof args['city'], 'string');
      checked += 1;
    }
    assert.equal(checked, 1, 'one of five seeds gives a tool call');
  });

  it('zhipuai-sdk-nodejs-v4: sync and stream', async () => {
    const client = new ZhipuAI({ apiKey: test.key, baseUrl: `${base}/paas/v4` });
    const answer = (await client.createCompletions({ model: 'glm-4.6', messages, maxTokens: 5, stream: false })) as {
      choices: { message: { content: string }; finish_reason: string }[];
    };
    assert.equal(typeof answer.choices[0]?.message.content, 'string');
    const raw = (await client.createCompletions({ model: 'glm-4.6', messages, maxTokens: 5, stream: true })) as unknown as Readable;
    let body = '';
    for await (const chunk of raw) body += String(chunk);
    assert.ok(body.endsWith('data: [DONE]\n\n'));
    const last = JSON.parse(body.split('\n\n').filter(Boolean).at(-2)?.slice('data: '.length) ?? '{}') as {
      choices: { finish_reason: string }[];
      usage: { completion_tokens: number };
    };
    assert.ok(['length', 'stop'].includes(last.choices[0]?.finish_reason ?? ''));
  });

  it('the tokenizer endpoint counts exactly the prompt_tokens the engine reports', async () => {
    const conversation = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is 2 + 2?' },
    ];
    const counted = await postJson(test, '/paas/v4/tokenizer', { model: 'glm-4.6', messages: conversation });
    assert.equal(counted.statusCode, 200, counted.body);
    const reported = await postJson(test, '/paas/v4/chat/completions', { model: 'glm-4.6', messages: conversation, max_tokens: 1 });
    assert.equal(reported.statusCode, 200, reported.body);
    const promptTokens = (reported.json() as { usage: { prompt_tokens: number } }).usage.prompt_tokens;
    assert.equal((counted.json() as { usage: { prompt_tokens: number } }).usage.prompt_tokens, promptTokens);
  });
});
