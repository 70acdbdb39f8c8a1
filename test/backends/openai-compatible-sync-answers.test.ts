import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createOpenAiCompatibleBackend } from '../../src/backends/openai-compatible/openai-compatible.backend.ts';
import type { OpenAiCompatibleSettings } from '../../src/backends/openai-compatible/openai-compatible-settings.ts';
import type { ChatModel } from '../../src/core/chat/chat-model.ts';
import { assertEngineFailure, rejection } from '../helpers/api-error-assertions.ts';
import { unusedResources } from '../helpers/backend-resources.ts';
import { chatRequest } from '../helpers/chat-request.ts';
import {
  sseReply,
  startFakeOpenAiServer,
  vllmChunk,
  vllmCompletion,
  vllmReasoningStream,
  vllmToolCallStream,
  vllmUsage,
  type FakeOpenAiServer,
} from '../helpers/fake-openai-server.ts';

/**
 * Whole answers from llama.cpp's server are asked for as streams and put together by the platform
 * (the server stops decoding for a departed client only while it streams): when the model's
 * config says `engine: llama.cpp`, or once an answer's `Server` header says so; `syncAnswers`
 * chooses either way.
 */
describe('openai-compatible: whole answers over a stream for llama.cpp servers', () => {
  let engine: FakeOpenAiServer;

  before(async () => {
    engine = await startFakeOpenAiServer();
  });
  after(async () => {
    await engine.close();
  });
  beforeEach(() => {
    engine.reset();
  });

  function openChat(entry: Partial<OpenAiCompatibleSettings> = {}): ChatModel {
    const backend = createOpenAiCompatibleBackend({
      modelName: 'glm-test',
      entry: { backend: 'openai-compatible', baseUrl: engine.baseUrl, ...entry },
      configDir: '.',
      resources: unusedResources,
    });
    assert.ok(backend.chat !== undefined);
    return backend.chat;
  }

  const streamedFlags = () => engine.requests.map((request) => request.body['stream']);

  it('engine llama.cpp: a sync call streams, and the answer is reasoning, content, finish and usage put together', async () => {
    const usage = { promptTokens: 12, completionTokens: 7, cachedTokens: 3 };
    engine.enqueue(sseReply(vllmReasoningStream({ reasoning: ['Let me ', 'think.'], content: ['It is ', 'sunny.'], finishReason: 'length', usage })));
    const result = await openChat({ engine: 'llama.cpp' }).generate(chatRequest());
    assert.deepEqual(streamedFlags(), [true]);
    assert.deepEqual(engine.requests[0]?.body['stream_options'], { include_usage: true });
    assert.deepEqual(result, {
      content: 'It is sunny.',
      reasoningContent: 'Let me think.',
      toolCalls: [],
      finishReason: 'length',
      usage: { promptTokens: 12, completionTokens: 7, cachedTokens: 3 },
    });
  });

  it('engine llama.cpp: tool calls are assembled from their fragments, a call without arguments gets {}', async () => {
    engine.enqueue(
      sseReply(
        vllmToolCallStream(
          [
            { id: 'call_1', name: 'get_weather', fragments: ['{"city":', '"Paris"}'] },
            { id: 'call_2', name: 'get_time', fragments: [] },
          ],
          { usage: { promptTokens: 20, completionTokens: 9 } },
        ),
      ),
    );
    const result = await openChat({ engine: 'llama.cpp' }).generate(chatRequest());
    assert.deepEqual(result.toolCalls, [
      { id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_2', name: 'get_time', arguments: '{}' },
    ]);
    assert.equal(result.finishReason, 'tool_calls');
  });

  it('engine llama.cpp: a stream that breaks before its end is a network error (1234), nothing half-answered', async () => {
    engine.enqueue(sseReply([vllmChunk({ content: 'It is ' }), vllmChunk({ content: 'sun' })], { cutAfter: 2 }));
    assertEngineFailure(await rejection(openChat({ engine: 'llama.cpp' }).generate(chatRequest())), 'interrupted', 'broke');
  });

  it('engine left out: whole answers until one says Server: llama.cpp, streams after it', async () => {
    const chat = openChat();
    engine.enqueue(
      { kind: 'json', body: vllmCompletion({ content: 'first' }), headers: { server: 'llama.cpp' } },
      sseReply([vllmChunk({ content: 'second' }), vllmChunk({}, 'stop'), { id: 'x', choices: [], usage: vllmUsage({ promptTokens: 4, completionTokens: 1 }) }]),
    );
    assert.equal((await chat.generate(chatRequest())).content, 'first');
    assert.equal((await chat.generate(chatRequest())).content, 'second');
    assert.deepEqual(streamedFlags(), [false, true]);
  });

  it('engine left out, another server: whole answers stay whole', async () => {
    const chat = openChat();
    engine.enqueue(
      { kind: 'json', body: vllmCompletion({ content: 'one' }), headers: { server: 'uvicorn' } },
      { kind: 'json', body: vllmCompletion({ content: 'two' }), headers: { server: 'uvicorn' } },
    );
    await chat.generate(chatRequest());
    await chat.generate(chatRequest());
    assert.deepEqual(streamedFlags(), [false, false]);
  });

  it('engine vllm: whole answers even from a server that says llama.cpp', async () => {
    const chat = openChat({ engine: 'vllm' });
    engine.enqueue(
      { kind: 'json', body: vllmCompletion({ content: 'one' }), headers: { server: 'llama.cpp' } },
      { kind: 'json', body: vllmCompletion({ content: 'two' }), headers: { server: 'llama.cpp' } },
    );
    await chat.generate(chatRequest());
    await chat.generate(chatRequest());
    assert.deepEqual(streamedFlags(), [false, false]);
  });

  it('syncAnswers whole: llama.cpp answers whole, even when its Server header says so', async () => {
    const chat = openChat({ engine: 'llama.cpp', syncAnswers: 'whole' });
    engine.enqueue(
      { kind: 'json', body: vllmCompletion({ content: 'one' }), headers: { server: 'llama.cpp' } },
      { kind: 'json', body: vllmCompletion({ content: 'two' }), headers: { server: 'llama.cpp' } },
    );
    assert.equal((await chat.generate(chatRequest())).content, 'one');
    assert.equal((await chat.generate(chatRequest())).content, 'two');
    assert.deepEqual(streamedFlags(), [false, false]);
  });

  it('syncAnswers streamed: any engine is asked for a stream from the first call', async () => {
    engine.enqueue(
      sseReply([
        vllmChunk({ content: 'streamed' }),
        vllmChunk({}, 'stop'),
        { id: 'x', choices: [], usage: vllmUsage({ promptTokens: 4, completionTokens: 1 }) },
      ]),
    );
    assert.equal((await openChat({ engine: 'vllm', syncAnswers: 'streamed' }).generate(chatRequest())).content, 'streamed');
    assert.deepEqual(streamedFlags(), [true]);
  });
});
