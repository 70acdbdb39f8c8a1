import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createZaiBackend } from '../../src/backends/zai/zai.backend.ts';
import type { ChatModel, TokenCounter } from '../../src/core/chat/chat-model.ts';
import type { ChatPartBatch, ChatStreamPart } from '../../src/core/chat/chat-stream-part.ts';
import type { ChatRequest } from '../../src/core/chat/chat-types.ts';
import type { ZaiSettings } from '../../src/backends/zai/zai-settings.ts';
import { apiErrorOf } from '../../src/core/errors/engine-failure.ts';
import { jsonReply, sseReply, startFakeOpenAiServer, vllmChunk, vllmCompletion, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { unusedResources } from '../helpers/backend-resources.ts';
import { assertEngineFailure, rejection } from '../helpers/api-error-assertions.ts';
import { chatRequest as baseChatRequest } from '../helpers/chat-request.ts';

function chatRequest(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return baseChatRequest({ model: 'glm-4.6', temperature: 1, topP: 0.95, maxTokensLimit: 131072, ...overrides });
}

let upstream: FakeOpenAiServer;
let baseUrl: string;
before(async () => {
  upstream = await startFakeOpenAiServer();
  baseUrl = `${upstream.origin}/api/paas/v4`;
});
after(async () => {
  await upstream.close();
});
beforeEach(() => {
  upstream.reset();
});

function openBackend(entry: Partial<ZaiSettings> = {}): { chat: ChatModel; tokenizer: TokenCounter } {
  const backend = createZaiBackend({
    modelName: 'glm-4.6',
    entry: { backend: 'zai', baseUrl, apiKey: 'upstream-id.upstream-secret', ...entry },
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

function upstreamError(status: number, code: string, message: string) {
  return jsonReply({ error: { code, message } }, status);
}

describe('zai: request', () => {
  it("sends the platform's own body with the apiKey to {baseUrl}/chat/completions", async () => {
    upstream.enqueue(jsonReply(vllmCompletion({ content: 'Hi' })));
    await openBackend({ upstreamModel: 'glm-4.6-upstream' }).chat.generate(
      chatRequest({ maxTokens: 100, stop: ['END'], thinking: { enabled: true, effort: 'high' }, responseFormat: 'json_object' }),
    );
    const request = upstream.requests[0];
    assert.equal(request?.path, '/api/paas/v4/chat/completions');
    assert.equal(request.headers['authorization'], 'Bearer upstream-id.upstream-secret');
    assert.deepEqual(request.body, {
      model: 'glm-4.6-upstream',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: false,
      do_sample: true,
      thinking: { type: 'enabled' },
      reasoning_effort: 'high',
      temperature: 1,
      top_p: 0.95,
      max_tokens: 100,
      stop: ['END'],
      response_format: { type: 'json_object' },
    });
  });

  it('sends do_sample false, thinking disabled, and keeps reasoning the client kept', async () => {
    upstream.enqueue(jsonReply(vllmCompletion({ content: 'Hi' })));
    await openBackend().chat.generate(
      chatRequest({
        greedy: true,
        thinking: { enabled: false, effort: undefined },
        messages: [
          { role: 'user', content: 'One' },
          { role: 'assistant', content: 'Two', reasoningContent: 'Counting.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'This?' },
              { type: 'image_url', url: 'https://example.com/a.png' },
            ],
          },
        ],
      }),
    );
    const body = upstream.requests[0]?.body ?? {};
    assert.equal(body['do_sample'], false);
    assert.deepEqual(body['thinking'], { type: 'disabled', clear_thinking: false });
    assert.deepEqual(body['messages'], [
      { role: 'user', content: 'One' },
      { role: 'assistant', content: 'Two', reasoning_content: 'Counting.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'This?' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
        ],
      },
    ]);
  });

  it('asks a stream with tools for tool_stream fragments', async () => {
    upstream.enqueue(sseReply([vllmChunk({ content: 'Hi' }, 'stop')]));
    await collect(openBackend().chat.stream(chatRequest({ tools: [{ name: 'now' }] })));
    const body = upstream.requests[0]?.body ?? {};
    assert.equal(body['stream'], true);
    assert.equal(body['tool_stream'], true);
    assert.equal(body['tool_choice'], 'auto');
  });
});

describe('zai: answers', () => {
  it('reads a sync answer like the OpenAI-compatible engines', async () => {
    upstream.enqueue(jsonReply(vllmCompletion({ content: 'Hi', reasoning: 'Greeting.', usage: { promptTokens: 9, completionTokens: 3, cachedTokens: 4 } })));
    assert.deepEqual(await openBackend().chat.generate(chatRequest()), {
      content: 'Hi',
      reasoningContent: 'Greeting.',
      toolCalls: [],
      finishReason: 'stop',
      usage: { promptTokens: 9, completionTokens: 3, cachedTokens: 4 },
    });
  });

  it('reads a stream whose last chunk carries finish_reason and usage, and sensitive stops', async () => {
    const last = {
      ...vllmChunk({ content: '' }, 'sensitive'),
      usage: { prompt_tokens: 8, completion_tokens: 2, total_tokens: 10, prompt_tokens_details: { cached_tokens: 0 } },
    };
    upstream.enqueue(
      sseReply([
        vllmChunk({ role: 'assistant', reasoning_content: 'Hmm' }),
        vllmChunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_9', type: 'function', function: { name: 'now', arguments: '{}' } }] }),
        last,
      ]),
    );
    assert.deepEqual(await collect(openBackend().chat.stream(chatRequest())), [
      { type: 'reasoning', text: 'Hmm' },
      { type: 'tool-call-start', index: 0, id: 'call_9', name: 'now' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
      { type: 'finish', reason: 'sensitive', usage: { promptTokens: 8, completionTokens: 2, cachedTokens: 0 } },
    ]);
  });
});

describe('zai: errors', () => {
  it("keeps the upstream's code and message", async () => {
    upstream.enqueue(upstreamError(400, '1214', 'messages 参数非法。请检查文档。'), upstreamError(429, '1302', 'High concurrency usage of this API.'));
    const { chat } = openBackend();
    const first = await rejection(chat.generate(chatRequest()));
    assertEngineFailure(first, 'rejected-input');
    assert.equal(first.relayedCode, '1214');
    assert.equal(first.message, 'messages 参数非法。请检查文档。');
    assert.equal(apiErrorOf(first).status, 400);
    const second = await rejection(chat.generate(chatRequest()));
    assertEngineFailure(second, 'overloaded', 'High concurrency');
    assert.equal(apiErrorOf(second).code, '1302');
  });

  it('passes on the contentFilter verdicts of a 1301 (unknown roles and levels dropped)', async () => {
    const verdicts = [
      { level: 0, role: 'history' },
      { level: 1, role: 'someone' },
      { level: 9, role: 'user' },
    ];
    upstream.enqueue(jsonReply({ contentFilter: verdicts, error: { code: '1301', message: 'Unsafe content.' } }, 400));
    const error = await rejection(openBackend().chat.generate(chatRequest()));
    assertEngineFailure(error, 'content-filtered', 'Unsafe content.');
    assert.deepEqual(apiErrorOf(error).toBody(), { contentFilter: [{ role: 'history', level: 0 }], error: { code: '1301', message: 'Unsafe content.' } });
  });

  it('reports a code this server does not know as 500 naming it', async () => {
    upstream.enqueue(upstreamError(500, '1999', 'Something new.'));
    assertEngineFailure(await rejection(openBackend().chat.generate(chatRequest())), 'engine-error', '1999');
  });

  it("reports a refused apiKey as the server's configuration, not the client's key", async () => {
    upstream.enqueue(upstreamError(401, '1001', 'Token is invalid.'));
    const error = await rejection(openBackend().chat.generate(chatRequest()));
    assertEngineFailure(error, 'misconfigured', 'apiKey');
    assert.ok(!(error as Error).message.includes('upstream-secret'));
  });

  it('keeps the code of an error sent inside a stream', async () => {
    upstream.enqueue(sseReply([vllmChunk({ content: 'Some' }), { error: { code: '1301', message: 'Unsafe content.' } }]));
    const parts: ChatStreamPart[] = [];
    const error = await rejection(
      (async () => {
        for await (const batch of openBackend().chat.stream(chatRequest())) parts.push(...batch);
      })(),
    );
    assert.deepEqual(parts, [{ type: 'text', text: 'Some' }]);
    assertEngineFailure(error, 'content-filtered', 'Unsafe content.');
    assert.equal(error.relayedCode, '1301');
    // Part of the answer went out: no other engine may take the call over.
    assert.equal(error.answerStarted, true);
  });

  it('falls back to the HTTP status for an answer without a platform error body', async () => {
    upstream.enqueue({ kind: 'text', status: 502, body: '<html>Bad Gateway</html>', contentType: 'text/html' });
    assertEngineFailure(await rejection(openBackend().chat.generate(chatRequest())), 'unavailable', 'Bad Gateway');
  });
});

describe('zai: token counting', () => {
  it("uses the upstream's /tokenizer", async () => {
    upstream.enqueue(jsonReply({ id: 't1', created: 1, usage: { prompt_tokens: 21, image_tokens: 0, video_tokens: 0, total_tokens: 21 } }));
    const count = await openBackend().tokenizer.countPromptTokens({
      messages: [{ role: 'user', content: 'Count me' }],
      tools: [],
      signal: new AbortController().signal,
    });
    assert.equal(count, 21);
    assert.equal(upstream.requests[0]?.path, '/api/paas/v4/tokenizer');
    assert.deepEqual(upstream.requests[0].body, { model: 'glm-4.6', messages: [{ role: 'user', content: 'Count me' }] });
  });
});
