import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import {
  sseReply,
  startFakeOpenAiServer,
  vllmChunk,
  vllmCompletion,
  vllmError,
  vllmReasoningStream,
  vllmToolCallStream,
  type FakeOpenAiServer,
} from '../helpers/fake-openai-server.ts';
import { parseSseBody } from '../helpers/sse-events.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

const url = '/paas/v4/chat/completions';
const user = [{ role: 'user', content: 'Hello' }];

describe('chat completions through the openai-compatible engine (fake vLLM on loopback)', () => {
  let engine: FakeOpenAiServer;
  let test: TestPlatform;
  before(async () => {
    engine = await startFakeOpenAiServer();
    const entry = { backend: 'openai-compatible' as const, baseUrl: engine.baseUrl, upstreamModel: 'zai-org/GLM' };
    test = await startTestPlatform({
      config: {
        models: {
          'glm-4.7': entry,
          'glm-4.5': entry,
          'glm-5.2': entry,
          'glm-4.6v': { ...entry, vision: true },
          'glm-4-32b-0414-128k': entry,
          'text-llm': entry,
        },
      },
    });
  });
  beforeEach(() => engine.reset());
  after(async () => {
    await test.close();
    await engine.close();
  });

  it('answers synchronously in the platform shape, with reasoning, cached tokens and the request_id', async () => {
    engine.enqueue({
      kind: 'json',
      body: vllmCompletion({ reasoning: 'Think.', content: 'Hi!', usage: { promptTokens: 12, completionTokens: 4, cachedTokens: 8 } }),
    });
    const response = await postJson(test, url, { model: 'glm-4.7', messages: user, request_id: 'chat-sync-0001' });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json() as Record<string, unknown>;
    assert.equal(body['request_id'], 'chat-sync-0001');
    assert.equal(body['model'], 'glm-4.7');
    assert.equal(typeof body['id'], 'string');
    assert.equal(typeof body['created'], 'number');
    assert.deepEqual(body['choices'], [{ index: 0, message: { role: 'assistant', content: 'Hi!', reasoning_content: 'Think.' }, finish_reason: 'stop' }]);
    assert.deepEqual(body['usage'], { prompt_tokens: 12, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 8 }, total_tokens: 16 });
  });

  it("applies the spec's per-model defaults and the engine's thinking switch", async () => {
    engine.setDefault({ kind: 'json', body: vllmCompletion({ content: 'ok' }) });
    await postJson(test, url, { model: 'glm-4.7', messages: user });
    await postJson(test, url, { model: 'glm-4.5', messages: user, thinking: { type: 'disabled' } });
    await postJson(test, url, { model: 'glm-4.5', messages: user, do_sample: false, max_tokens: 77, stop: ['END'] });
    const [first, second, third] = engine.requests.map((request) => request.body);
    assert.equal(first?.['model'], 'zai-org/GLM');
    assert.equal(first?.['temperature'], 1);
    assert.equal(first?.['top_p'], 0.95);
    assert.deepEqual(first?.['chat_template_kwargs'], { enable_thinking: true });
    assert.equal(first?.['max_tokens'], undefined, 'the spec cap is not sent as max_tokens');
    assert.equal(second?.['temperature'], 0.6);
    assert.deepEqual(second?.['chat_template_kwargs'], { enable_thinking: false });
    assert.equal(third?.['temperature'], 0, 'do_sample false is greedy');
    assert.equal(third?.['max_tokens'], 77);
    assert.deepEqual(third?.['stop'], ['END']);
  });

  it('passes every stop word to the engine: an array of up to four, a lone string as a one-item list', async () => {
    engine.setDefault({ kind: 'json', body: vllmCompletion({ content: 'ok' }) });
    for (const stop of [['END', 'STOP', '###', '\n\n'], 'END']) {
      const response = await postJson(test, url, { model: 'glm-4.7', messages: user, stop });
      assert.equal(response.statusCode, 200, response.body);
    }
    assert.deepEqual(
      engine.requests.map((request) => request.body['stop']),
      [['END', 'STOP', '###', '\n\n'], ['END']],
    );
  });

  it('never asks glm-4-32b-0414-128k to think (thinking is for the glm-4.5 series and later), and glm-4.5 by default', async () => {
    engine.setDefault({ kind: 'json', body: vllmCompletion({ content: 'ok' }) });
    await postJson(test, url, { model: 'glm-4-32b-0414-128k', messages: user });
    await postJson(test, url, { model: 'glm-4-32b-0414-128k', messages: user, thinking: { type: 'enabled' } });
    await postJson(test, url, { model: 'glm-4.5', messages: user });
    assert.deepEqual(
      engine.requests.map((request) => request.body['chat_template_kwargs']),
      [{ enable_thinking: false }, { enable_thinking: false }, { enable_thinking: true }],
    );
  });

  it('maps glm-5.2 reasoning effort: low and medium to high, none skips thinking', async () => {
    engine.setDefault({ kind: 'json', body: vllmCompletion({ content: 'ok' }) });
    await postJson(test, url, { model: 'glm-5.2', messages: user, reasoning_effort: 'low' });
    await postJson(test, url, { model: 'glm-5.2', messages: user, reasoning_effort: 'none' });
    const [low, none] = engine.requests.map((request) => request.body);
    assert.equal(low?.['reasoning_effort'], 'high');
    assert.deepEqual(none?.['chat_template_kwargs'], { enable_thinking: false });
    assert.equal(none?.['reasoning_effort'], undefined);
  });

  it('drops earlier reasoning_content unless clear_thinking is false', async () => {
    engine.setDefault({ kind: 'json', body: vllmCompletion({ content: 'ok' }) });
    const turns = [...user, { role: 'assistant', content: 'Hi', reasoning_content: 'earlier thought' }, { role: 'user', content: 'Again' }];
    await postJson(test, url, { model: 'glm-4.7', messages: turns });
    await postJson(test, url, { model: 'glm-4.7', messages: turns, thinking: { type: 'enabled', clear_thinking: false } });
    const sent = engine.requests.map((request) => (request.body['messages'] as Record<string, unknown>[])[1]);
    assert.equal(sent[0]?.['reasoning_content'], undefined);
    assert.equal(sent[1]?.['reasoning_content'], 'earlier thought');
  });

  it('returns tool calls with content null and string arguments', async () => {
    engine.enqueue({ kind: 'json', body: vllmCompletion({ toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }] }) });
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    const response = await postJson(test, url, { model: 'glm-4.7', messages: user, tools });
    const choice = (response.json() as { choices: { message: Record<string, unknown>; finish_reason: string }[] }).choices[0];
    assert.equal(choice?.finish_reason, 'tool_calls');
    assert.equal(choice?.message['content'], null);
    assert.deepEqual(choice?.message['tool_calls'], [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]);
    assert.equal(engine.requests[0]?.body['tool_choice'], 'auto');
  });

  it('streams chunks in the exact framing, with the last chunk carrying finish_reason, role, empty content and usage', async () => {
    engine.enqueue(
      sseReply(
        vllmReasoningStream({ reasoning: ['Let me ', 'see.'], content: ['Hel', 'lo!'], usage: { promptTokens: 9, completionTokens: 6, cachedTokens: 2 } }),
      ),
    );
    const response = await postJson(test, url, { model: 'glm-4.7', messages: user, stream: true });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/event-stream/);
    const events = parseSseBody(response.body) as { choices: { delta: Record<string, unknown>; finish_reason: unknown }[]; usage?: unknown }[];
    const deltas = events.slice(0, -1).map((event) => event.choices[0]);
    assert.ok(deltas.every((choice) => choice?.finish_reason === null && choice.delta['role'] === 'assistant'));
    assert.equal(deltas.map((choice) => choice?.delta['reasoning_content'] ?? '').join(''), 'Let me see.');
    assert.equal(deltas.map((choice) => choice?.delta['content'] ?? '').join(''), 'Hello!');
    const last = events.at(-1);
    assert.deepEqual(last?.choices, [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: 'stop' }]);
    assert.deepEqual(last?.usage, { prompt_tokens: 9, completion_tokens: 6, prompt_tokens_details: { cached_tokens: 2 }, total_tokens: 15 });
  });

  it('relays tool-call fragments per index with tool_stream, and whole calls without it', async () => {
    const calls = [
      { id: 'call_a', name: 'get_weather', fragments: ['{"city":', '"Paris"}'] },
      { id: 'call_b', name: 'get_time', fragments: ['{}'] },
    ];
    const tools = calls.map((call) => ({ type: 'function', function: { name: call.name } }));
    engine.enqueue(sseReply(vllmToolCallStream(calls)), sseReply(vllmToolCallStream(calls)));

    const streamed = parseSseBody((await postJson(test, url, { model: 'glm-4.7', messages: user, tools, stream: true, tool_stream: true })).body);
    const fragments = streamed.flatMap(
      (event) => (event['choices'] as { delta: { tool_calls?: { index: number; function: { arguments: string } }[] } }[])[0]?.delta.tool_calls ?? [],
    );
    const joined = (index: number) =>
      fragments
        .filter((fragment) => fragment.index === index)
        .map((fragment) => fragment.function.arguments)
        .join('');
    assert.ok(fragments.length >= 4, 'fragments, not whole calls');
    assert.equal(joined(0), '{"city":"Paris"}');
    assert.equal(joined(1), '{}');

    const whole = parseSseBody((await postJson(test, url, { model: 'glm-4.7', messages: user, tools, stream: true })).body);
    const withCalls = whole.filter((event) => (event['choices'] as { delta: { tool_calls?: unknown } }[])[0]?.delta.tool_calls !== undefined);
    assert.equal(withCalls.length, 1, 'one delta with complete calls');
    assert.deepEqual((withCalls[0]?.['choices'] as { delta: { tool_calls: unknown } }[])[0]?.delta.tool_calls, [
      { index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{}' } },
    ]);
    assert.equal((whole.at(-1)?.['choices'] as { finish_reason: string }[])[0]?.finish_reason, 'tool_calls');
  });

  it('says what was flagged (content_filter) when an answer ends sensitive: on the sync answer and on the last chunk', async () => {
    engine.enqueue(
      { kind: 'json', body: vllmCompletion({ content: 'Part', finishReason: 'content_filter' }) },
      sseReply(vllmReasoningStream({ content: ['Pa', 'rt'], finishReason: 'content_filter' })),
    );
    const sync = (await postJson(test, url, { model: 'glm-4.7', messages: user })).json() as Record<string, unknown>;
    assert.equal((sync['choices'] as { finish_reason: string }[])[0]?.finish_reason, 'sensitive');
    assert.deepEqual(sync['content_filter'], [{ role: 'assistant', level: 1 }]);
    const events = parseSseBody((await postJson(test, url, { model: 'glm-4.7', messages: user, stream: true })).body);
    const last = events.at(-1) as Record<string, unknown>;
    assert.equal((last['choices'] as { finish_reason: string }[])[0]?.finish_reason, 'sensitive');
    assert.deepEqual(last['content_filter'], [{ role: 'assistant', level: 1 }]);
    assert.ok(
      events.slice(0, -1).every((event) => !('content_filter' in event)),
      'only the last chunk says it',
    );
    // An answer that was not flagged carries no verdict.
    engine.enqueue({ kind: 'json', body: vllmCompletion({ content: 'Fine' }) });
    assert.equal('content_filter' in (await postJson(test, url, { model: 'glm-4.7', messages: user })).json(), false);
  });

  it('answers an engine error before the first chunk with a real status and error body', async () => {
    engine.enqueue(vllmError(400, 'temperature must be positive'));
    const response = await postJson(test, url, { model: 'glm-4.7', messages: user, stream: true });
    assertPlatformError(response, { status: 400, code: '1214', mentions: ['temperature must be positive'] });
  });

  it('ends with finish_reason network_error when the engine connection breaks mid-answer', async () => {
    engine.enqueue(sseReply(vllmReasoningStream({ content: ['a', 'b', 'c', 'd'] }), { cutAfter: 3 }));
    const events = parseSseBody((await postJson(test, url, { model: 'glm-4.7', messages: user, stream: true })).body);
    const last = events.at(-1) as { choices: { finish_reason: string; delta: unknown }[]; usage: unknown };
    assert.equal(last.choices[0]?.finish_reason, 'network_error');
    assert.deepEqual(last.choices[0]?.delta, { role: 'assistant', content: '' });
  });

  it('sends an error after the first chunk in band, then [DONE]', async () => {
    engine.enqueue(sseReply([vllmChunk({ role: 'assistant', content: 'partial' }), { error: { message: 'engine overloaded', code: 500 } }]));
    const events = parseSseBody((await postJson(test, url, { model: 'glm-4.7', messages: user, stream: true })).body);
    const last = events.at(-1) as { error?: { code: string; message: string } };
    assert.equal(typeof last.error?.code, 'string');
    assert.match(String(last.error?.message), /overloaded/);
  });

  it('aborts the engine call when the client leaves mid-stream', async () => {
    engine.enqueue(sseReply(vllmReasoningStream({ content: Array.from({ length: 50 }, () => 'x') }), { delayMs: 50 }));
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (test.app.server.address() as AddressInfo).port;
    const controller = new AbortController();
    const response = await fetch(`http://127.0.0.1:${port}${url}`, {
      method: 'POST',
      headers: { authorization: test.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'glm-4.7', messages: user, stream: true }),
      signal: controller.signal,
    });
    const reader = response.body?.getReader();
    await reader?.read();
    controller.abort();
    const closedAt = await engine.waitForClientClose(0, 2000);
    assert.ok(closedAt > 0, 'the engine saw the connection close');
  });

  it('aborts the engine call when the client of a non-streamed call leaves before the answer', async () => {
    engine.enqueue({ kind: 'hang' });
    // The streaming test before this one may have started listening already.
    if (!test.app.server.listening) await test.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (test.app.server.address() as AddressInfo).port;
    const controller = new AbortController();
    const answer = fetch(`http://127.0.0.1:${port}${url}`, {
      method: 'POST',
      headers: { authorization: test.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'glm-4.7', messages: user }),
      signal: controller.signal,
    });
    answer.catch(() => undefined);
    for (let waited = 0; engine.requests.length === 0 && waited < 2000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    const closedAt = await engine.waitForClientClose(0, 2000);
    assert.ok(closedAt > 0, 'the engine saw the connection close');
  });

  it('records usage of completed calls in the ledger, off the request path', async () => {
    engine.enqueue({ kind: 'json', body: vllmCompletion({ content: 'ok', usage: { promptTokens: 21, completionTokens: 3, cachedTokens: 1 } }) });
    await postJson(test, url, { model: 'glm-4.7', messages: user, request_id: 'usage-check-01' });
    await test.platform.usage.flush();
    const keyId = test.key.split('.')[0] ?? '';
    const records = (await test.platform.ledger.listForKey(keyId)).filter((record) => record.requestId === 'usage-check-01');
    assert.deepEqual(
      records.map(({ model, endpoint, promptTokens, completionTokens, cachedTokens }) => ({ model, endpoint, promptTokens, completionTokens, cachedTokens })),
      [{ model: 'glm-4.7', endpoint: 'chat.completions', promptTokens: 21, completionTokens: 3, cachedTokens: 1 }],
    );
  });

  it('passes images to a vision engine and refuses them clearly on a text-only one', async () => {
    engine.setDefault({ kind: 'json', body: vllmCompletion({ content: 'a cat' }) });
    const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const messages = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: pixel } },
        ],
      },
    ];
    const vision = await postJson(test, url, { model: 'glm-4.6v', messages });
    assert.equal(vision.statusCode, 200, vision.body);
    const sentParts = (engine.requests[0]?.body['messages'] as { content: { image_url?: { url: string } }[] }[])[0]?.content;
    assert.equal(sentParts?.[1]?.image_url?.url, `data:image/png;base64,${pixel}`, 'bare base64 became a data URL');
    const textOnly = await postJson(test, url, { model: 'text-llm', messages });
    assertPlatformError(textOnly, { status: 400, code: '1214', mentions: ['messages[0].content[1]'] });
  });

  it('runs the web_search tool on the local index: results in the prompt and in web_search (sync and stream)', async () => {
    await test.platform.searchIndex.upsert({
      url: 'https://docs.example.org/tides',
      title: 'Tides of the Bay of Fundy',
      content: 'The Bay of Fundy has the highest tides in the world, up to sixteen metres between low and high water.',
      description: 'Tides',
      siteName: 'Example Docs',
      icon: '',
      publishedAt: Date.UTC(2026, 0, 5),
      indexedAt: Date.now(),
    });
    engine.setDefault((request) =>
      request.body['stream'] === true
        ? sseReply(vllmReasoningStream({ content: ['Sixteen metres.'] }))
        : { kind: 'json', body: vllmCompletion({ content: 'Sixteen metres.' }) },
    );
    const tools = [{ type: 'web_search', web_search: { enable: true, search_query: 'highest tides Fundy', count: 3 } }];
    const sync = await postJson(test, url, { model: 'glm-4.7', messages: [{ role: 'user', content: 'How high are the tides?' }], tools });
    assert.equal(sync.statusCode, 200, sync.body);
    const webSearch = (sync.json() as { web_search: { title: string; link: string; content: string }[] }).web_search;
    assert.equal(webSearch[0]?.link, 'https://docs.example.org/tides');
    assert.match(webSearch[0]?.content ?? '', /Fundy/);
    // The chat call, not a health probe an earlier test's engine failure may have scheduled.
    const chatCall = engine.requests.find((request) => request.path.endsWith('/chat/completions'));
    const sent = chatCall?.body['messages'] as { role: string; content: string }[];
    assert.equal(sent[0]?.role, 'system');
    assert.match(sent[0]?.content ?? '', /Tides of the Bay of Fundy/);
    assert.equal(chatCall?.body['tools'], undefined, 'the web_search tool is not passed to the engine');

    const streamed = parseSseBody((await postJson(test, url, { model: 'glm-4.7', messages: user, tools, stream: true })).body);
    const last = streamed.at(-1) as { web_search?: { link: string }[] };
    assert.equal(last.web_search?.[0]?.link, 'https://docs.example.org/tides');
  });

  it('accepts retrieval tools and answers 404 for a knowledge base the key does not have (test/retrieval has the rest)', async () => {
    const response = await postJson(test, url, { model: 'glm-4.7', messages: user, tools: [{ type: 'retrieval', retrieval: { knowledge_id: 'kb-1' } }] });
    assertPlatformError(response, { status: 404, code: '404', mentions: ['kb-1'] });
    assert.equal(engine.requests.length, 0);
  });
});
