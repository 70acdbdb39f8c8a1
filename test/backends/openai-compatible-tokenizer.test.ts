import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createOpenAiCompatibleBackend } from '../../src/backends/openai-compatible/openai-compatible.backend.ts';
import type { ChatModel, TokenCounter } from '../../src/core/chat/chat-model.ts';
import type { ChatRequest, FunctionTool } from '../../src/core/chat/chat-types.ts';
import type { OpenAiCompatibleSettings } from '../../src/backends/openai-compatible/openai-compatible-settings.ts';
import { assertEngineFailure, rejection } from '../helpers/api-error-assertions.ts';
import { unusedResources } from '../helpers/backend-resources.ts';
import { fakeLlamaServer, renderChat } from '../helpers/fake-llama-server-replies.ts';
import { jsonReply, startFakeOpenAiServer, vllmError, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { postJson, startTestPlatform } from '../helpers/test-platform.ts';
import { chatRequest as baseChatRequest } from '../helpers/chat-request.ts';

/**
 * Token counting per kind of OpenAI-compatible engine, against fakes that speak each server's
 * protocol: llama.cpp's server (input_tokens, or /apply-template + /tokenize with `content`),
 * vLLM's chat /tokenize, SGLang (text only). The count must be the chat call's prompt_tokens.
 */
let engine: FakeOpenAiServer;
before(async () => {
  engine = await startFakeOpenAiServer();
});
beforeEach(() => engine.reset());
after(async () => {
  await engine.close();
});

function openBackend(entry: Partial<OpenAiCompatibleSettings> = {}): { chat: ChatModel; tokenizer: TokenCounter } {
  const backend = createOpenAiCompatibleBackend({
    modelName: 'glm-local',
    entry: { backend: 'openai-compatible', baseUrl: engine.baseUrl, upstreamModel: 'glm-tiny', ...entry },
    configDir: '.',
    resources: unusedResources,
  });
  assert.ok(backend.chat !== undefined && backend.tokenizer !== undefined);
  return { chat: backend.chat, tokenizer: backend.tokenizer };
}

const messages: ChatRequest['messages'] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'What is the weather in Paris today?' },
];
const tools: FunctionTool[] = [
  { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
];
const thinkingOff = { enabled: false, effort: undefined } as const;
const thinkingOn = { enabled: true, effort: undefined } as const;

function chatRequest(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return baseChatRequest({ model: 'glm-local', messages, thinking: thinkingOn, ...overrides });
}

const signal = () => new AbortController().signal;

describe('openai-compatible tokenizer: llama.cpp server', () => {
  it('counts through /v1/chat/completions/input_tokens with the chat body, equal to the chat call for tools and thinking on and off', async () => {
    engine.setDefault(fakeLlamaServer());
    const { chat, tokenizer } = openBackend({ engine: 'llama.cpp' });
    const counts = new Set<number>();
    for (const [withTools, thinking] of [
      [false, thinkingOn],
      [false, thinkingOff],
      [true, thinkingOn],
      [true, thinkingOff],
    ] as const) {
      engine.reset();
      engine.setDefault(fakeLlamaServer());
      const requestTools = withTools ? tools : [];
      const counted = await tokenizer.countPromptTokens({ messages, tools: requestTools, thinking, signal: signal() });
      const answer = await chat.generate(chatRequest({ tools: requestTools, thinking }));
      assert.equal(counted, answer.usage.promptTokens, `tools ${withTools}, thinking ${thinking.enabled}`);
      counts.add(counted);
      const [countCall, chatCall] = engine.requests;
      assert.equal(countCall?.path, '/v1/chat/completions/input_tokens');
      // The engine renders the same messages, tools and thinking switch as for the chat call.
      for (const field of ['model', 'messages', 'tools', 'chat_template_kwargs']) assert.deepEqual(countCall.body[field], chatCall?.body[field], field);
      assert.deepEqual(countCall.body['chat_template_kwargs'], { enable_thinking: thinking.enabled });
    }
    assert.equal(counts.size, 4, 'tools and the thinking switch each change the count');
  });

  it('falls back to /apply-template then /tokenize of the prompt on a server without input_tokens, and remembers it', async () => {
    engine.setDefault(fakeLlamaServer({ withoutInputTokens: true }));
    const { chat, tokenizer } = openBackend({ engine: 'llama.cpp' });
    const first = await tokenizer.countPromptTokens({ messages, tools, thinking: thinkingOff, signal: signal() });
    assert.deepEqual(
      engine.requests.map((request) => request.path),
      ['/v1/chat/completions/input_tokens', '/apply-template', '/tokenize'],
    );
    const [, applyTemplate, tokenize] = engine.requests;
    assert.deepEqual(applyTemplate?.body['chat_template_kwargs'], { enable_thinking: false });
    assert.deepEqual(applyTemplate?.body['tools'], [
      { type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: tools[0]?.parameters } },
    ]);
    // Special tokens added and parsed, as the chat endpoint tokenizes its prompt.
    assert.deepEqual(tokenize?.body, { model: 'glm-tiny', content: renderChat(applyTemplate?.body ?? {}), add_special: true, parse_special: true });
    assert.equal(first, (await chat.generate(chatRequest({ tools, thinking: thinkingOff }))).usage.promptTokens);

    engine.reset();
    engine.setDefault(fakeLlamaServer({ withoutInputTokens: true }));
    assert.equal(await tokenizer.countPromptTokens({ messages, tools, thinking: thinkingOff, signal: signal() }), first);
    assert.deepEqual(
      engine.requests.map((request) => request.path),
      ['/apply-template', '/tokenize'],
    );
  });

  it('finds a llama.cpp server without the engine option: its /tokenize answers no tokens to the chat form', async () => {
    engine.setDefault(fakeLlamaServer());
    const { chat, tokenizer } = openBackend();
    const counted = await tokenizer.countPromptTokens({ messages, tools: [], thinking: thinkingOn, signal: signal() });
    assert.deepEqual(
      engine.requests.map((request) => request.path),
      ['/tokenize', '/v1/chat/completions/input_tokens'],
    );
    assert.ok(counted > 0);
    assert.equal(counted, (await chat.generate(chatRequest({}))).usage.promptTokens);
    engine.reset();
    engine.setDefault(fakeLlamaServer());
    await tokenizer.countPromptTokens({ messages, tools: [], thinking: thinkingOn, signal: signal() });
    assert.deepEqual(
      engine.requests.map((request) => request.path),
      ['/v1/chat/completions/input_tokens'],
      'the kind found is kept',
    );
  });

  it('never counts 0: a server that tokenizes the prompt into nothing is an engine error (500) that says so', async () => {
    engine.setDefault(fakeLlamaServer({ withoutInputTokens: true, emptyTokenize: true }));
    const error = await rejection(
      openBackend({ engine: 'llama.cpp' }).tokenizer.countPromptTokens({ messages, tools: [], thinking: thinkingOn, signal: signal() }),
    );
    assertEngineFailure(error, 'bad-answer', "'glm-local'", '0 tokens', '/tokenize');
  });

  it('refuses to count media on an old server whose /tokenize reads text only (1221)', async () => {
    engine.setDefault(fakeLlamaServer({ withoutInputTokens: true }));
    const withImage: ChatRequest['messages'] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is it?' },
          { type: 'image_url', url: 'data:image/png;base64,AAAA' },
        ],
      },
    ];
    const error = await rejection(
      openBackend({ engine: 'llama.cpp', vision: true }).tokenizer.countPromptTokens({ messages: withImage, tools: [], signal: signal() }),
    );
    assertEngineFailure(error, 'misconfigured', 'input_tokens', 'update llama-server');
  });

  it('names the config when a server set as llama.cpp has neither endpoint (1221)', async () => {
    engine.setDefault(jsonReply({ detail: 'Not Found' }, 404));
    const error = await rejection(openBackend({ engine: 'llama.cpp' }).tokenizer.countPromptTokens({ messages, tools: [], signal: signal() }));
    assertEngineFailure(error, 'misconfigured', '/apply-template', "'engine'", 'tokenizerPath');
  });
});

describe('openai-compatible tokenizer: vLLM and SGLang', () => {
  it("sends vLLM's chat /tokenize the chat call's thinking switch and reads its count", async () => {
    engine.enqueue(jsonReply({ count: 23, max_model_len: 8192, tokens: Array.from({ length: 23 }, (_value, index) => index) }));
    const counted = await openBackend({ engine: 'vllm' }).tokenizer.countPromptTokens({ messages, tools, thinking: thinkingOff, signal: signal() });
    assert.equal(counted, 23);
    const request = engine.requests[0];
    assert.equal(request?.path, '/tokenize');
    assert.deepEqual(request.body['chat_template_kwargs'], { enable_thinking: false });
    assert.equal(request.body['add_generation_prompt'], true);
    assert.equal((request.body['tools'] as unknown[]).length, 1);
  });

  it('never counts 0 on vLLM either: an empty count is an engine error (500)', async () => {
    engine.enqueue(jsonReply({ count: 0, max_model_len: 8192, tokens: [] }));
    const error = await rejection(openBackend({ engine: 'vllm' }).tokenizer.countPromptTokens({ messages, tools: [], signal: signal() }));
    assertEngineFailure(error, 'bad-answer', '0 tokens');
  });

  it('says SGLang needs tokenizerPath (its /tokenize counts text), without calling it', async () => {
    const error = await rejection(openBackend({ engine: 'sglang' }).tokenizer.countPromptTokens({ messages, tools: [], signal: signal() }));
    assertEngineFailure(error, 'misconfigured', 'SGLang', 'tokenizerPath');
    assert.equal(engine.requests.length, 0);
  });

  it("an engine of unknown kind that refuses the chat form of /tokenize is a configuration matter (1221), not the caller's", async () => {
    engine.enqueue(vllmError(422, "Field required: 'prompt'"));
    const error = await rejection(openBackend().tokenizer.countPromptTokens({ messages, tools: [], signal: signal() }));
    assertEngineFailure(error, 'misconfigured', "'engine'", 'tokenizerPath', 'prompt');
  });
});

describe('POST /paas/v4/tokenizer on a llama.cpp server', () => {
  it("counts what the chat call reports as prompt_tokens, with the request's thinking switch (default enabled)", async () => {
    engine.setDefault(fakeLlamaServer());
    const test = await startTestPlatform({
      config: { models: { 'glm-local': { backend: 'openai-compatible', baseUrl: engine.baseUrl, engine: 'llama.cpp' } } },
    });
    try {
      const wireMessages = [{ role: 'user', content: 'Hello there' }];
      for (const thinking of [undefined, { type: 'enabled' }, { type: 'disabled' }] as const) {
        const extra = thinking === undefined ? {} : { thinking };
        const counted = await postJson(test, '/paas/v4/tokenizer', { model: 'glm-local', messages: wireMessages, ...extra });
        assert.equal(counted.statusCode, 200, counted.body);
        const chat = await postJson(test, '/paas/v4/chat/completions', { model: 'glm-local', messages: wireMessages, ...extra });
        assert.equal(chat.statusCode, 200, chat.body);
        const promptTokens = (chat.json() as { usage: { prompt_tokens: number } }).usage.prompt_tokens;
        assert.equal((counted.json() as { usage: { prompt_tokens: number } }).usage.prompt_tokens, promptTokens, JSON.stringify(thinking));
      }
      const countBodies = engine.requests.filter((request) => request.path.endsWith('/input_tokens')).map((request) => request.body['chat_template_kwargs']);
      assert.deepEqual(countBodies, [{ enable_thinking: true }, { enable_thinking: true }, { enable_thinking: false }]);
    } finally {
      await test.close();
    }
  });
});
