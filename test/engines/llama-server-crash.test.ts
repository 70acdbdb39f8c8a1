import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { UsageRecord } from '../../src/core/usage/usage-record.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { startLlamaServer, type LlamaServer } from '../helpers/llama-server.ts';
import { describeWithLlamaServer } from '../helpers/real-engine-suite.ts';
import { parseSseBody } from '../helpers/sse-events.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { writeTinyGlmGguf } from '../helpers/tiny-glm-gguf.ts';

const url = '/paas/v4/chat/completions';
const alias = 'tiny-glm';
const messages = [{ role: 'user', content: 'Tell me a long story about the sea, please.' }];

interface Chunk {
  choices: { delta: { content?: string; reasoning_content?: string }; finish_reason: string | null }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/**
 * A real llama-server killed (SIGKILL) in the middle of a streamed answer: the client keeps what
 * was delivered, the answer ends with network_error and the usage of what went out, the ledger
 * has one row of it; started again on the same port, the engine serves the next calls without a
 * platform restart (the platform's pooled connections to the dead process are not reused).
 */
describeWithLlamaServer('a real llama-server that dies mid-stream and comes back', (binary) => {
  let engine: LlamaServer;
  let test: TestPlatform;
  let platformOrigin: string;
  let keyId: string;

  before(async () => {
    // A model whose answers run to max_tokens: the crash lands in the middle of one.
    engine = await startLlamaServer({ binary, modelPath: writeTinyGlmGguf({ endless: true }), alias });
    const entry = { backend: 'openai-compatible' as const, baseUrl: engine.baseUrl, upstreamModel: alias };
    test = await startTestPlatform({ config: { models: { 'glm-4.6': entry } } });
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    platformOrigin = `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`;
    keyId = test.key.split('.')[0] ?? '';
  });
  after(async () => {
    await test?.close();
    await engine?.stop();
  });

  async function ledgerRows(requestId: string): Promise<UsageRecord[]> {
    const read = async () => {
      await test.platform.usage.flush();
      return (await test.platform.ledger.listForKey(keyId)).filter((row) => row.requestId === requestId);
    };
    const until = Date.now() + 15_000;
    while ((await read()).length === 0 && Date.now() < until) await sleep(25);
    await sleep(100);
    return read();
  }

  it('ends the answer with network_error and bills what was delivered; the engine restarted on its port serves the next calls', async (t) => {
    const maxTokens = 1500;
    const body = { model: 'glm-4.6', messages, max_tokens: maxTokens, thinking: { type: 'disabled' } };
    const requestId = 'engine-crash-0001';
    const response = await fetch(`${platformOrigin}${url}`, {
      method: 'POST',
      headers: { authorization: test.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, stream: true, request_id: requestId }),
      signal: AbortSignal.timeout(30_000),
    });
    assert.equal(response.status, 200);
    assert.ok(response.body !== null);
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let received = '';
    // Some answer has gone out (the role chunk and a few tokens), then the engine crashes.
    while ((received.match(/\n\n/g) ?? []).length < 12) {
      const { value, done } = await reader.read();
      assert.ok(!done, `the answer is long: ${received}`);
      received += decoder.decode(value, { stream: true });
    }
    await engine.kill('SIGKILL');
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      received += decoder.decode(value, { stream: true });
    }

    const chunks = parseSseBody(received) as unknown as Chunk[];
    const last = chunks.at(-1);
    assert.equal(last?.choices[0]?.finish_reason, 'network_error', JSON.stringify(last));
    const pieces = chunks.slice(0, -1).filter((chunk) => (chunk.choices[0]?.delta.content ?? chunk.choices[0]?.delta.reasoning_content ?? '') !== '');
    assert.ok(pieces.length >= 10 && pieces.length < maxTokens, `${pieces.length} pieces delivered of ${maxTokens}`);
    const usage = last?.usage;
    assert.ok(usage !== undefined, 'the last chunk has usage');
    // llama-server streams one token per event: each delivered piece is at least one token.
    assert.ok(usage.completion_tokens >= pieces.length, `completion_tokens ${usage.completion_tokens} for ${pieces.length} pieces`);
    assert.ok(usage.prompt_tokens > 0, 'the prompt is counted without the engine');
    assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);
    t.diagnostic(`cut after ${pieces.length} pieces: billed ${usage.prompt_tokens} prompt (estimated) + ${usage.completion_tokens} completion tokens`);
    const rows = await ledgerRows(requestId);
    assert.equal(rows.length, 1, 'one ledger row');
    assert.deepEqual([rows[0]?.promptTokens, rows[0]?.completionTokens], [usage.prompt_tokens, usage.completion_tokens]);

    // While the engine is down a call fails at once with a status, not a hang.
    const down = await postJson(test, url, { model: 'glm-4.6', messages, max_tokens: 4, stream: true });
    assertPlatformError(down, { status: 500, code: '1234', mentions: ['glm-4.6'] });

    await engine.restart();
    for (let call = 0; call < 4; call += 1) {
      const streamed = await postJson(test, url, { model: 'glm-4.6', messages, max_tokens: 8, stream: true, thinking: { type: 'disabled' } });
      assert.equal(streamed.statusCode, 200, streamed.body);
      const streamedLast = parseSseBody(streamed.body).at(-1) as unknown as Chunk;
      assert.notEqual(streamedLast.choices[0]?.finish_reason, 'network_error');
      assert.ok((streamedLast.usage?.completion_tokens ?? 0) > 0);
      const sync = await postJson(test, url, { model: 'glm-4.6', messages, max_tokens: 8, thinking: { type: 'disabled' } });
      assert.equal(sync.statusCode, 200, sync.body);
      assert.ok((sync.json() as { usage: { completion_tokens: number } }).usage.completion_tokens > 0);
    }
  });
});
