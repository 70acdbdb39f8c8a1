import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createOpenAiCompatibleBackend } from '../../src/backends/openai-compatible/openai-compatible.backend.ts';
import type { ChatModel, TokenCounter } from '../../src/core/chat/chat-model.ts';
import type { ChatPartBatch, ChatStreamPart } from '../../src/core/chat/chat-stream-part.ts';
import type { ChatRequest } from '../../src/core/chat/chat-types.ts';
import { EngineConnectionError } from '../../src/core/chat/engine-errors.ts';
import type { OpenAiCompatibleSettings } from '../../src/backends/openai-compatible/openai-compatible-settings.ts';
import { unusedResources } from '../helpers/backend-resources.ts';
import {
  jsonReply,
  sseReply,
  startFakeOpenAiServer,
  vllmChunk,
  vllmCompletion,
  vllmError,
  vllmReasoningStream,
  vllmToolCallStream,
  vllmUsageChunk,
  type FakeOpenAiServer,
} from '../helpers/fake-openai-server.ts';
import { assertApiError, assertEngineFailure, rejection } from '../helpers/api-error-assertions.ts';
import { chatRequest as baseChatRequest } from '../helpers/chat-request.ts';

function chatRequest(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return baseChatRequest({ maxTokensLimit: 98304, ...overrides });
}

function openBackend(baseUrl: string, entry: Partial<OpenAiCompatibleSettings> = {}): { chat: ChatModel; tokenizer: TokenCounter } {
  const backend = createOpenAiCompatibleBackend({
    modelName: 'glm-test',
    entry: { backend: 'openai-compatible', baseUrl, ...entry },
    configDir: '.',
    resources: unusedResources,
  });
  assert.ok(backend.chat !== undefined && backend.tokenizer !== undefined);
  return { chat: backend.chat, tokenizer: backend.tokenizer };
}

async function collect(stream: AsyncIterable<ChatPartBatch>): Promise<ChatStreamPart[]> {
  const parts: ChatStreamPart[] = [];
  for await (const batch of stream) parts.push(...batch);
  return parts;
}

/** Reads a stream to its failure; returns the parts that came before it and the error. */
async function collectUntilError(stream: AsyncIterable<ChatPartBatch>): Promise<{ parts: ChatStreamPart[]; error: unknown }> {
  const parts: ChatStreamPart[] = [];
  try {
    for await (const batch of stream) parts.push(...batch);
  } catch (error) {
    return { parts, error };
  }
  assert.fail(`the stream ended without an error after ${JSON.stringify(parts)}`);
}

/** Joined reasoning and text of a list of parts. */
function texts(parts: readonly ChatStreamPart[]): { reasoning: string; text: string } {
  let reasoning = '';
  let text = '';
  for (const part of parts) {
    if (part.type === 'reasoning') reasoning += part.text;
    if (part.type === 'text') text += part.text;
  }
  return { reasoning, text };
}

async function closedPortUrl(): Promise<string> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/v1`;
}

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

function lastBody(): Record<string, unknown> {
  const request = engine.requests.at(-1);
  assert.ok(request !== undefined, 'the engine received no request');
  return request.body;
}

describe('openai-compatible: request mapping', () => {
  it('sends only what was set, the model name and the default thinking switch', async () => {
    engine.enqueue(jsonReply(vllmCompletion({ content: 'Hi' })));
    await openBackend(engine.baseUrl).chat.generate(chatRequest());
    const request = engine.requests[0];
    assert.equal(request?.method, 'POST');
    assert.equal(request.path, '/v1/chat/completions');
    assert.equal(request.headers['authorization'], undefined);
    assert.deepEqual(request.body, {
      model: 'glm-test',
      messages: [{ role: 'user', content: 'Hello' }],
      chat_template_kwargs: { enable_thinking: true },
      stream: false,
    });
  });

  it('switches thinking off at the default path', async () => {
    engine.enqueue(jsonReply(vllmCompletion({ content: 'Hi' })));
    await openBackend(engine.baseUrl).chat.generate(chatRequest({ thinking: { enabled: false, effort: 'high' } }));
    assert.deepEqual(lastBody()['chat_template_kwargs'], { enable_thinking: false });
    assert.equal(lastBody()['reasoning_effort'], undefined, 'no effort without thinking');
  });

  it('puts the switch at a custom dotted path, or sends none', async () => {
    engine.enqueue(jsonReply(vllmCompletion({ content: 'Hi' })), jsonReply(vllmCompletion({ content: 'Hi' })), jsonReply(vllmCompletion({ content: 'Hi' })));
    await openBackend(engine.baseUrl, { thinkingParam: 'chat_template_kwargs.thinking' }).chat.generate(chatRequest());
    assert.deepEqual(lastBody()['chat_template_kwargs'], { thinking: true });
    await openBackend(engine.baseUrl, { thinkingParam: 'think' }).chat.generate(chatRequest({ thinking: { enabled: false, effort: undefined } }));
    assert.equal(lastBody()['think'], false);
    await openBackend(engine.baseUrl, { thinkingParam: 'none' }).chat.generate(chatRequest());
    assert.deepEqual(Object.keys(lastBody()).sort(), ['messages', 'model', 'stream']);
  });

  it('maps sampling, output cap, stop, JSON mode, seed and effort', async () => {
    engine.enqueue(jsonReply(vllmCompletion({ content: '{}' })));
    await openBackend(engine.baseUrl, { upstreamModel: 'zai-org/GLM-4.7' }).chat.generate(
      chatRequest({
        temperature: 0.6,
        topP: 0.95,
        maxTokens: 512,
        stop: ['END'],
        responseFormat: 'json_object',
        seed: 7,
        thinking: { enabled: true, effort: 'low' },
      }),
    );
    const body = lastBody();
    assert.equal(body['model'], 'zai-org/GLM-4.7');
    assert.equal(body['temperature'], 0.6);
    assert.equal(body['top_p'], 0.95);
    assert.equal(body['max_tokens'], 512);
    assert.deepEqual(body['stop'], ['END']);
    assert.deepEqual(body['response_format'], { type: 'json_schema', json_schema: { name: 'json_object', schema: { type: 'object' } } });
    assert.equal(body['seed'], 7);
    assert.equal(body['reasoning_effort'], 'low');
  });

  it('makes greedy decoding temperature 0 without top_p', async () => {
    engine.enqueue(jsonReply(vllmCompletion({ content: 'Hi' })));
    await openBackend(engine.baseUrl).chat.generate(chatRequest({ greedy: true, temperature: 0.8, topP: 0.9 }));
    assert.equal(lastBody()['temperature'], 0);
    assert.equal('top_p' in lastBody(), false);
  });

  it('sends tools, earlier tool calls, tool results and kept reasoning', async () => {
    engine.enqueue(jsonReply(vllmCompletion({ content: 'Sunny' })));
    await openBackend(engine.baseUrl).chat.generate(
      chatRequest({
        tools: [
          { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
          { name: 'now' },
        ],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          {
            role: 'assistant',
            content: null,
            reasoningContent: 'Need the tool.',
            toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
          },
          { role: 'tool', content: '{"sky":"clear"}', toolCallId: 'call_1' },
        ],
      }),
    );
    const body = lastBody();
    assert.deepEqual(body['tools'], [
      {
        type: 'function',
        function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
      },
      { type: 'function', function: { name: 'now', parameters: { type: 'object', properties: {} } } },
    ]);
    assert.equal(body['tool_choice'], 'auto');
    assert.deepEqual(body['messages'], [
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'Need the tool.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', content: '{"sky":"clear"}', tool_call_id: 'call_1' },
    ]);
  });

  it('passes media parts to a vision engine', async () => {
    engine.enqueue(jsonReply(vllmCompletion({ content: 'A cat' })));
    await openBackend(engine.baseUrl, { vision: true }).chat.generate(
      chatRequest({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', url: 'https://example.com/cat.png' },
              { type: 'video_url', url: 'data:video/mp4;base64,AAAA' },
              { type: 'input_audio', url: 'data:audio/wav;base64,UklG' },
            ],
          },
        ],
      }),
    );
    assert.deepEqual(lastBody()['messages'], [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
          { type: 'video_url', video_url: { url: 'data:video/mp4;base64,AAAA' } },
          { type: 'input_audio', input_audio: { data: 'UklG', format: 'wav' } },
        ],
      },
    ]);
  });

  it('refuses media parts for a text-only engine, naming the part, without calling it', async () => {
    const messages: ChatRequest['messages'] = [
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', url: 'https://example.com/cat.png' },
        ],
      },
    ];
    const { chat, tokenizer } = openBackend(engine.baseUrl);
    assertApiError(await rejection(chat.generate(chatRequest({ messages }))), '1214', 'messages[1].content[1]', 'image_url', 'text only');
    assertApiError((await collectUntilError(chat.stream(chatRequest({ messages })))).error, '1214', 'messages[1].content[1]');
    assertApiError(await rejection(tokenizer.countPromptTokens({ messages, tools: [], signal: new AbortController().signal })), '1214');
    assert.equal(engine.requests.length, 0);
  });

  it('sends text parts to a text-only engine as one string', async () => {
    engine.enqueue(jsonReply(vllmCompletion({ content: 'Hi' })));
    await openBackend(engine.baseUrl).chat.generate(
      chatRequest({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Line one' },
              { type: 'text', text: 'Line two' },
            ],
          },
        ],
      }),
    );
    assert.deepEqual(lastBody()['messages'], [{ role: 'user', content: 'Line one\nLine two' }]);
  });

  it('sends the apiKey as a bearer token', async () => {
    engine.enqueue(jsonReply(vllmCompletion({ content: 'Hi' })));
    await openBackend(engine.baseUrl, { apiKey: 'sk-engine-secret' }).chat.generate(chatRequest());
    assert.equal(engine.requests[0]?.headers['authorization'], 'Bearer sk-engine-secret');
  });

  it('asks a stream for usage', async () => {
    engine.enqueue(sseReply(vllmReasoningStream({ content: ['Hi'] })));
    await collect(openBackend(engine.baseUrl).chat.stream(chatRequest()));
    assert.equal(lastBody()['stream'], true);
    assert.deepEqual(lastBody()['stream_options'], { include_usage: true });
    assert.equal(engine.requests[0]?.headers['accept'], 'text/event-stream');
  });
});

describe('openai-compatible: answers', () => {
  it('reads content, reasoning_content and cached tokens', async () => {
    engine.enqueue(
      jsonReply(vllmCompletion({ content: 'Paris.', reasoning: 'The capital of France.', usage: { promptTokens: 30, completionTokens: 9, cachedTokens: 16 } })),
    );
    const result = await openBackend(engine.baseUrl).chat.generate(chatRequest());
    assert.deepEqual(result, {
      content: 'Paris.',
      reasoningContent: 'The capital of France.',
      toolCalls: [],
      finishReason: 'stop',
      usage: { promptTokens: 30, completionTokens: 9, cachedTokens: 16 },
    });
  });

  it('reads the `reasoning` field some servers use', async () => {
    const answer = vllmCompletion({ content: 'Hi' });
    const choice = (answer['choices'] as Record<string, Record<string, unknown>>[])[0];
    assert.ok(choice !== undefined);
    choice['message'] = { role: 'assistant', content: 'Hi', reasoning: 'Greet back.' };
    engine.enqueue(jsonReply(answer));
    const result = await openBackend(engine.baseUrl).chat.generate(chatRequest());
    assert.equal(result.reasoningContent, 'Greet back.');
  });

  it('takes a <think> block out of the content', async () => {
    engine.enqueue(jsonReply(vllmCompletion({ content: '<think>\nUser greets.\n</think>\n\nHello!' })));
    const result = await openBackend(engine.baseUrl).chat.generate(chatRequest());
    assert.equal(result.reasoningContent, '\nUser greets.\n');
    assert.equal(result.content, 'Hello!');
  });

  it('leaves a tag that does not open the answer alone', async () => {
    engine.enqueue(jsonReply(vllmCompletion({ content: 'Use <think> tags.' })));
    const result = await openBackend(engine.baseUrl).chat.generate(chatRequest());
    assert.equal(result.content, 'Use <think> tags.');
    assert.equal(result.reasoningContent, '');
  });

  it('turns object arguments into JSON strings, gives ids, and finishes for tool calls', async () => {
    const answer = vllmCompletion({
      content: '',
      toolCalls: [
        { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } },
        { id: '', name: 'now', arguments: '{}' },
      ],
      finishReason: 'stop',
    });
    engine.enqueue(jsonReply(answer));
    const result = await openBackend(engine.baseUrl).chat.generate(chatRequest());
    assert.equal(result.finishReason, 'tool_calls');
    assert.deepEqual(result.toolCalls[0], { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' });
    assert.match(result.toolCalls[1]?.id ?? '', /^call_[0-9a-f]{24}$/);
    assert.equal(result.toolCalls[1]?.arguments, '{}');
  });

  for (const [engineReason, platformReason] of [
    ['length', 'length'],
    ['content_filter', 'sensitive'],
    ['abort', 'stop'],
    ['stop', 'stop'],
  ] as const) {
    it(`maps finish_reason ${engineReason} to ${platformReason}`, async () => {
      engine.enqueue(jsonReply(vllmCompletion({ content: 'x', finishReason: engineReason })));
      assert.equal((await openBackend(engine.baseUrl).chat.generate(chatRequest())).finishReason, platformReason);
    });
  }

  it('counts 0 for usage the engine did not report', async () => {
    const answer = vllmCompletion({ content: 'Hi' });
    delete answer['usage'];
    engine.enqueue(jsonReply(answer));
    assert.deepEqual((await openBackend(engine.baseUrl).chat.generate(chatRequest())).usage, { promptTokens: 0, completionTokens: 0, cachedTokens: 0 });
  });
});

describe('openai-compatible: streams', () => {
  it('yields reasoning, then text, then finish with the usage of the last chunk', async () => {
    engine.enqueue(
      sseReply(
        vllmReasoningStream({ reasoning: ['Think', 'ing.'], content: ['Hel', 'lo'], usage: { promptTokens: 12, completionTokens: 6, cachedTokens: 8 } }),
      ),
    );
    const parts = await collect(openBackend(engine.baseUrl).chat.stream(chatRequest()));
    assert.deepEqual(parts, [
      { type: 'reasoning', text: 'Think' },
      { type: 'reasoning', text: 'ing.' },
      { type: 'text', text: 'Hel' },
      { type: 'text', text: 'lo' },
      { type: 'finish', reason: 'stop', usage: { promptTokens: 12, completionTokens: 6, cachedTokens: 8 } },
    ]);
  });

  it('yields a start and the argument fragments of each tool call', async () => {
    engine.enqueue(
      sseReply(
        vllmToolCallStream([
          { id: 'call_1', name: 'get_weather', fragments: ['{"city":', ' "Par', 'is"}'] },
          { id: 'call_2', name: 'now', fragments: ['{}'] },
        ]),
      ),
    );
    const parts = await collect(openBackend(engine.baseUrl).chat.stream(chatRequest()));
    assert.deepEqual(parts, [
      { type: 'tool-call-start', index: 0, id: 'call_1', name: 'get_weather' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: ' "Par' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: 'is"}' },
      { type: 'tool-call-start', index: 1, id: 'call_2', name: 'now' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{}' },
      { type: 'finish', reason: 'tool_calls', usage: { promptTokens: 0, completionTokens: 0, cachedTokens: 0 } },
    ]);
  });

  it('takes whole tool calls with object arguments and no index (Ollama style)', async () => {
    engine.enqueue(
      sseReply([
        vllmChunk({ role: 'assistant', tool_calls: [{ id: 'call_x', function: { name: 'get_weather', arguments: { city: 'Oslo' } } }] }),
        vllmChunk({}, 'stop'),
      ]),
    );
    const parts = await collect(openBackend(engine.baseUrl).chat.stream(chatRequest()));
    assert.deepEqual(parts.slice(0, 2), [
      { type: 'tool-call-start', index: 0, id: 'call_x', name: 'get_weather' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":"Oslo"}' },
    ]);
    assert.equal(parts[2]?.type === 'finish' && parts[2].reason, 'tool_calls');
  });

  it('splits think tags cut across chunk boundaries', async () => {
    engine.enqueue(sseReply(vllmReasoningStream({ content: ['<thi', 'nk>I rea', 'son</th', 'ink', '>\n\nThe ans', 'wer <', 'b>'] })));
    const parts = await collect(openBackend(engine.baseUrl).chat.stream(chatRequest()));
    assert.deepEqual(texts(parts), { reasoning: 'I reason', text: 'The answer <b>' });
    const firstText = parts.findIndex((part) => part.type === 'text');
    assert.ok(
      parts.slice(0, firstText).every((part) => part.type === 'reasoning'),
      'reasoning comes first',
    );
    assert.ok(
      parts.every((part) => !('text' in part) || !part.text.includes('think')),
      'no piece of a tag leaks',
    );
  });

  it('ends unfinished reasoning as reasoning', async () => {
    engine.enqueue(sseReply(vllmReasoningStream({ content: ['<think>Still thin', 'king</'], finishReason: 'length' })));
    const parts = await collect(openBackend(engine.baseUrl).chat.stream(chatRequest()));
    assert.deepEqual(texts(parts), { reasoning: 'Still thinking</', text: '' });
    assert.equal(parts.at(-1)?.type === 'finish' && parts.at(-1), parts.at(-1));
    assert.deepEqual(parts.at(-1), { type: 'finish', reason: 'length', usage: { promptTokens: 0, completionTokens: 0, cachedTokens: 0 } });
  });

  it('reads events framed with CRLF, split across packets, with comments and multi-line data', async () => {
    const first = JSON.stringify(vllmChunk({ content: 'Hi' }));
    // One event in two data lines: the receiver joins them with a newline, which JSON allows between tokens.
    const second = 'data: {"choices":[{"index":0,\ndata: "delta":{"content":" there"},"finish_reason":"stop"}]}\n\n';
    engine.enqueue(
      sseReply([': keep-alive\r\n\r\n', `data: ${first.slice(0, 20)}`, `${first.slice(20)}\r`, '\n\r\n', second, 'data: [DO', 'NE]\r\n\r\n'], {
        delayMs: 5,
        done: false,
      }),
    );
    const parts = await collect(openBackend(engine.baseUrl).chat.stream(chatRequest()));
    assert.deepEqual(texts(parts), { reasoning: '', text: 'Hi there' });
  });

  it('reads usage sent on the finish chunk and takes a stream without [DONE] that said why it finished', async () => {
    const finish = { ...vllmChunk({ content: '!' }, 'stop'), usage: vllmUsageChunk({ promptTokens: 3, completionTokens: 2 })['usage'] };
    engine.enqueue(sseReply([vllmChunk({ content: 'Hi' }), finish], { done: false }));
    const parts = await collect(openBackend(engine.baseUrl).chat.stream(chatRequest()));
    assert.deepEqual(parts, [
      { type: 'text', text: 'Hi' },
      { type: 'text', text: '!' },
      { type: 'finish', reason: 'stop', usage: { promptTokens: 3, completionTokens: 2, cachedTokens: 0 } },
    ]);
  });
});

describe('openai-compatible: errors', () => {
  it('reports an engine that cannot be reached as 1234', async () => {
    const { chat } = openBackend(await closedPortUrl());
    assertEngineFailure(await rejection(chat.generate(chatRequest())), 'unreachable', "'glm-test'", 'ECONNREFUSED');
    assertEngineFailure((await collectUntilError(chat.stream(chatRequest()))).error, 'unreachable', 'ECONNREFUSED');
  });

  it('fails at once, with nothing left running, when the engine client refuses the request before sending it', async () => {
    // A line break in the configured apiKey makes an Authorization header the engine client will not send.
    const { chat } = openBackend(engine.baseUrl, { apiKey: 'sk-line\nbreak', timeoutMs: 60_000 });
    const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
    const timersBefore = timers();
    assertEngineFailure(await rejection(chat.generate(chatRequest())), 'unreachable', 'invalid authorization header');
    assertEngineFailure((await collectUntilError(chat.stream(chatRequest()))).error, 'unreachable', 'invalid authorization header');
    // The calls' 60 s timers were cleared: a leaked one would hold the process for a minute.
    assert.equal(timers(), timersBefore);
  });

  it('reports a connection reset before the answer as 1234', async () => {
    engine.enqueue({ kind: 'reset' });
    assertEngineFailure(await rejection(openBackend(engine.baseUrl).chat.generate(chatRequest())), 'unreachable', "'glm-test'");
  });

  it("passes a 400's engine message on as 1214", async () => {
    engine.enqueue(vllmError(400, "'messages' must alternate user/assistant roles"));
    assertEngineFailure(
      await rejection(openBackend(engine.baseUrl).chat.generate(chatRequest())),
      'rejected-input',
      'HTTP 400',
      'must alternate user/assistant',
    );
  });

  it('reports a prompt over the context length as 1261, before a stream starts', async () => {
    engine.enqueue(vllmError(400, "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens in the messages."));
    const { error, parts } = await collectUntilError(openBackend(engine.baseUrl).chat.stream(chatRequest()));
    assert.deepEqual(parts, []);
    assertEngineFailure(error, 'context-too-long', 'maximum context length is 4096');
  });

  it('reads OpenAI-style and plain text error bodies', async () => {
    engine.enqueue(jsonReply({ error: { message: 'bad grammar', type: 'invalid_request_error' } }, 422), {
      kind: 'text',
      status: 500,
      body: 'Internal Server Error',
    });
    const { chat } = openBackend(engine.baseUrl);
    assertEngineFailure(await rejection(chat.generate(chatRequest())), 'rejected-input', 'bad grammar');
    assertEngineFailure(await rejection(chat.generate(chatRequest())), 'engine-error', 'HTTP 500', 'Internal Server Error');
  });

  it('reports 429 as 1305 and 503 as 1234', async () => {
    engine.enqueue(vllmError(429, 'Too many requests', 'RateLimitError'), vllmError(503, 'Service unavailable', 'ServiceUnavailableError'));
    const { chat } = openBackend(engine.baseUrl);
    assertEngineFailure(await rejection(chat.generate(chatRequest())), 'overloaded', 'Too many requests');
    assertEngineFailure(await rejection(chat.generate(chatRequest())), 'unavailable', 'Service unavailable');
  });

  it('reports refused credentials as a configuration problem and never shows the apiKey', async () => {
    engine.enqueue(jsonReply({ error: { message: 'Invalid key sk-engine-secret' } }, 401));
    const error = await rejection(openBackend(engine.baseUrl, { apiKey: 'sk-engine-secret' }).chat.generate(chatRequest()));
    assertEngineFailure(error, 'misconfigured', 'apiKey');
    assert.ok(error instanceof Error && !error.message.includes('sk-engine-secret'), String(error));
  });

  it('throws EngineConnectionError when the stream breaks after parts', async () => {
    engine.enqueue(sseReply(vllmReasoningStream({ content: ['One', ' two', ' three', ' four'] }), { cutAfter: 3 }));
    const { parts, error } = await collectUntilError(openBackend(engine.baseUrl).chat.stream(chatRequest()));
    assert.deepEqual(parts, [
      { type: 'text', text: 'One' },
      { type: 'text', text: ' two' },
    ]);
    assert.ok(error instanceof EngineConnectionError, String(error));
    assert.match(error.message, /glm-test/);
  });

  it('throws EngineConnectionError for a stream that ends cleanly without finishing', async () => {
    engine.enqueue(sseReply([vllmChunk({ content: 'Half' })], { done: false }));
    const { parts, error } = await collectUntilError(openBackend(engine.baseUrl).chat.stream(chatRequest()));
    assert.deepEqual(parts, [{ type: 'text', text: 'Half' }]);
    assert.ok(error instanceof EngineConnectionError, String(error));
  });

  it('reports a stream cut before any part as 1234', async () => {
    engine.enqueue(sseReply(vllmReasoningStream({ content: ['Never'] }), { cutAfter: 1 }));
    const { parts, error } = await collectUntilError(openBackend(engine.baseUrl).chat.stream(chatRequest()));
    assert.deepEqual(parts, []);
    assertEngineFailure(error, 'unreachable');
  });

  it('passes an error the engine sends inside the stream on', async () => {
    engine.enqueue(
      sseReply([vllmChunk({ content: 'Hi' }), { error: { object: 'error', message: 'CUDA out of memory', type: 'InternalServerError', code: 500 } }]),
    );
    const { parts, error } = await collectUntilError(openBackend(engine.baseUrl).chat.stream(chatRequest()));
    assert.deepEqual(parts, [{ type: 'text', text: 'Hi' }]);
    assertEngineFailure(error, 'engine-error', 'CUDA out of memory');
  });

  it('gives up after timeoutMs', async () => {
    engine.enqueue({ kind: 'hang' });
    const started = Date.now();
    assertEngineFailure(await rejection(openBackend(engine.baseUrl, { timeoutMs: 200 }).chat.generate(chatRequest())), 'timeout', '200 ms', 'timeoutMs');
    assert.ok(Date.now() - started < 2000);
    await engine.waitForClientClose(0, 1000);
  });
});

describe('openai-compatible: abort', () => {
  it('closes the engine connection when the client aborts mid-stream', async () => {
    engine.enqueue(sseReply(vllmReasoningStream({ content: Array.from({ length: 50 }, (_, index) => `w${index} `) }), { delayMs: 30 }));
    const controller = new AbortController();
    const parts: ChatStreamPart[] = [];
    const error = await rejection(
      (async () => {
        for await (const batch of openBackend(engine.baseUrl).chat.stream(chatRequest({ signal: controller.signal }))) {
          for (const part of batch) {
            parts.push(part);
            if (parts.length === 2) {
              controller.abort();
              break;
            }
          }
        }
      })(),
    );
    assert.equal((error as Error).name, 'AbortError');
    assert.equal(parts.length, 2);
    const closedAt = await engine.waitForClientClose(0, 1000);
    assert.ok(closedAt - (engine.requests[0]?.receivedAt ?? 0) < 1000);
  });

  it('closes the engine connection when the reader stops early', async () => {
    engine.enqueue(sseReply(vllmReasoningStream({ content: Array.from({ length: 50 }, (_, index) => `w${index} `) }), { delayMs: 30 }));
    for await (const batch of openBackend(engine.baseUrl).chat.stream(chatRequest())) {
      if (batch.some((part) => part.type === 'text')) break;
    }
    await engine.waitForClientClose(0, 1000);
  });

  it('closes the engine connection when the client aborts before the answer', async () => {
    engine.enqueue({ kind: 'hang' });
    const controller = new AbortController();
    const pending = openBackend(engine.baseUrl).chat.generate(chatRequest({ signal: controller.signal }));
    while (engine.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    assert.equal(((await rejection(pending)) as Error).name, 'AbortError');
    await engine.waitForClientClose(0, 1000);
  });

  it('does not call the engine for an already aborted request', async () => {
    const controller = new AbortController();
    controller.abort();
    assert.equal(((await rejection(openBackend(engine.baseUrl).chat.generate(chatRequest({ signal: controller.signal })))) as Error).name, 'AbortError');
    assert.equal(engine.requests.length, 0);
  });
});

describe('openai-compatible: token counting', () => {
  const messages: ChatRequest['messages'] = [{ role: 'user', content: 'Count me' }];

  it("uses vLLM's chat /tokenize beside /v1", async () => {
    engine.enqueue(jsonReply({ count: 17, max_model_len: 8192, tokens: [1, 2, 3] }));
    const count = await openBackend(engine.baseUrl, { upstreamModel: 'zai-org/GLM-4.7', apiKey: 'sk-engine-secret' }).tokenizer.countPromptTokens({
      messages,
      tools: [{ name: 'now' }],
      signal: new AbortController().signal,
    });
    assert.equal(count, 17);
    const request = engine.requests[0];
    assert.equal(request?.path, '/tokenize');
    assert.equal(request.headers['authorization'], 'Bearer sk-engine-secret');
    assert.deepEqual(request.body, {
      model: 'zai-org/GLM-4.7',
      messages: [{ role: 'user', content: 'Count me' }],
      add_generation_prompt: true,
      tools: [{ type: 'function', function: { name: 'now', parameters: { type: 'object', properties: {} } } }],
    });
  });

  it('counts the tokens of an answer without count', async () => {
    engine.enqueue(jsonReply({ tokens: [5, 6, 7, 8] }));
    assert.equal(await openBackend(engine.baseUrl).tokenizer.countPromptTokens({ messages, tools: [], signal: new AbortController().signal }), 4);
  });

  it('says to configure tokenizerPath when the engine has no /tokenize', async () => {
    engine.enqueue(jsonReply({ detail: 'Not Found' }, 404));
    const error = await rejection(openBackend(engine.baseUrl).tokenizer.countPromptTokens({ messages, tools: [], signal: new AbortController().signal }));
    assertEngineFailure(error, 'misconfigured', '/tokenize', 'tokenizerPath');
  });
});
