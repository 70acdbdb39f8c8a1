import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { after, before, beforeEach, describe, it } from 'node:test';
import OpenAI from 'openai';
import { ZhipuAI } from 'zhipuai-sdk-nodejs-v4';
import {
  sseReply,
  startFakeOpenAiServer,
  vllmCompletion,
  vllmReasoningStream,
  vllmToolCallStream,
  type FakeOpenAiServer,
} from '../helpers/fake-openai-server.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

const messages = [{ role: 'user' as const, content: 'Hello' }];
const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

/** The official clients, unmodified, on our server in front of a fake vLLM. */
describe('official SDKs on chat completions (openai-compatible engine)', () => {
  let engine: FakeOpenAiServer;
  let test: TestPlatform;
  let base: string;
  before(async () => {
    engine = await startFakeOpenAiServer();
    test = await startTestPlatform({ config: { models: { 'glm-4.7': { backend: 'openai-compatible', baseUrl: engine.baseUrl } } } });
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`;
  });
  beforeEach(() => engine.reset());
  after(async () => {
    await test.close();
    await engine.close();
  });

  const openai = () => new OpenAI({ apiKey: test.key, baseURL: `${base}/paas/v4/`, maxRetries: 0 });

  it('openai SDK: sync', async () => {
    engine.enqueue({ kind: 'json', body: vllmCompletion({ reasoning: 'Hm.', content: 'Hi there', usage: { promptTokens: 7, completionTokens: 2 } }) });
    const completion = await openai().chat.completions.create({ model: 'glm-4.7', messages });
    assert.equal(completion.choices[0]?.message.content, 'Hi there');
    assert.equal(completion.choices[0]?.finish_reason, 'stop');
    assert.equal(completion.usage?.total_tokens, 9);
  });

  it('openai SDK: stream', async () => {
    engine.enqueue(sseReply(vllmReasoningStream({ reasoning: ['Hm'], content: ['Hi', ' there'], usage: { promptTokens: 7, completionTokens: 2 } })));
    const stream = await openai().chat.completions.create({ model: 'glm-4.7', messages, stream: true });
    let text = '';
    let finish: string | null | undefined;
    let total: number | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      total = chunk.usage?.total_tokens ?? total;
    }
    assert.equal(text, 'Hi there');
    assert.equal(finish, 'stop');
    assert.equal(total, 9);
  });

  it('openai SDK: tools, sync and with the stream helper', async () => {
    engine.enqueue({ kind: 'json', body: vllmCompletion({ toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] }) });
    const completion = await openai().chat.completions.create({ model: 'glm-4.7', messages, tools: [weatherTool] });
    const call = completion.choices[0]?.message.tool_calls?.[0];
    assert.ok(call?.type === 'function');
    assert.equal(call.function.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Paris' });

    engine.enqueue(sseReply(vllmToolCallStream([{ id: 'call_2', name: 'get_weather', fragments: ['{"city"', ':"Rome"}'] }])));
    const runner = openai().chat.completions.stream({ model: 'glm-4.7', messages, tools: [weatherTool] });
    const final = await runner.finalChatCompletion();
    const streamed = final.choices[0]?.message.tool_calls?.[0];
    assert.ok(streamed?.type === 'function');
    assert.deepEqual(JSON.parse(streamed.function.arguments), { city: 'Rome' });
    assert.equal(final.choices[0]?.finish_reason, 'tool_calls');
  });

  it('zhipuai-sdk-nodejs-v4: sync', async () => {
    engine.enqueue({ kind: 'json', body: vllmCompletion({ content: 'Ni hao' }) });
    const client = new ZhipuAI({ apiKey: test.key, baseUrl: `${base}/paas/v4` });
    const answer = (await client.createCompletions({ model: 'glm-4.7', messages, stream: false })) as { choices: { message: { content: string } }[] };
    assert.equal(answer.choices[0]?.message.content, 'Ni hao');
  });

  it('zhipuai-sdk-nodejs-v4: stream (raw event stream)', async () => {
    engine.enqueue(sseReply(vllmReasoningStream({ content: ['Ni', ' hao'], usage: { promptTokens: 3, completionTokens: 2 } })));
    const client = new ZhipuAI({ apiKey: test.key, baseUrl: `${base}/paas/v4` });
    const raw = (await client.createCompletions({ model: 'glm-4.7', messages, stream: true })) as unknown as Readable;
    let body = '';
    for await (const chunk of raw) body += String(chunk);
    const events = body.split('\n\n').filter(Boolean);
    assert.equal(events.at(-1), 'data: [DONE]');
    const text = events
      .slice(0, -1)
      .map((event) => JSON.parse(event.slice('data: '.length)) as { choices: { delta: { content?: string } }[] })
      .map((chunk) => chunk.choices[0]?.delta.content ?? '')
      .join('');
    assert.equal(text, 'Ni hao');
  });
});
