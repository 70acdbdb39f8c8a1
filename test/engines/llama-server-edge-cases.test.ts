import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { startLlamaServer, type LlamaServer } from '../helpers/llama-server.ts';
import { describeWithLlamaServer } from '../helpers/real-engine-suite.ts';
import { parseSseBody } from '../helpers/sse-events.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { writeTinyGlmGguf } from '../helpers/tiny-glm-gguf.ts';
import { tinyGlmAlias, weatherMessages } from './weather-conversation.ts';

/**
 * Edge cases of the platform in front of a real llama.cpp `llama-server` (tiny random-weight model,
 * GLM-4.7's template): a JSON answer format, and an engine that fails after its stream began.
 */
const url = '/paas/v4/chat/completions';
const alias = tinyGlmAlias;
const messages = weatherMessages;

interface Delta {
  content?: string | null;
  reasoning_content?: string;
}

interface Choice {
  message?: Delta;
  delta?: Delta;
  finish_reason: string | null;
}

/** Content, reasoning and finish reason of a sync answer or of a stream's chunks, comparable across platform and engine. */
function answerOf(events: readonly Record<string, unknown>[], part: 'message' | 'delta'): { content: string; reasoning: string; finishReason: string | null } {
  let content = '';
  let reasoning = '';
  let finishReason: string | null = null;
  for (const event of events) {
    const choice = (event['choices'] as Choice[] | undefined)?.[0];
    if (choice === undefined) continue;
    content += choice[part]?.content ?? '';
    reasoning += choice[part]?.reasoning_content ?? '';
    if (choice.finish_reason !== null) finishReason = choice.finish_reason;
  }
  return { content, reasoning, finishReason };
}

/** The `data:` payloads of an engine stream (llama-server ends a failed one without `[DONE]`). */
function enginePayloads(body: string): string[] {
  return body
    .split('\n\n')
    .filter((event) => event !== '')
    .map((event) => {
      assert.ok(event.startsWith('data: '), JSON.stringify(event));
      return event.slice('data: '.length);
    });
}

describeWithLlamaServer('llama-server edge cases: answer format and failures mid-stream', (binary) => {
  let engine: LlamaServer;
  let failingEngine: LlamaServer;
  let test: TestPlatform;

  before(async () => {
    const extraArgs = ['--no-cache-prompt'];
    // The second model samples byte-fallback tokens now and then: a few characters in, one of them
    // makes invalid UTF-8, and llama-server fails the request after its stream began.
    [engine, failingEngine] = await Promise.all([
      startLlamaServer({ binary, modelPath: writeTinyGlmGguf(), alias, extraArgs }),
      startLlamaServer({ binary, modelPath: writeTinyGlmGguf({ byteTokenOffset: -0.5 }), alias, extraArgs }),
    ]);
    test = await startTestPlatform({
      config: {
        models: {
          'glm-4.7': { backend: 'openai-compatible', baseUrl: engine.baseUrl, upstreamModel: alias },
          'glm-4.6': { backend: 'openai-compatible', baseUrl: failingEngine.baseUrl, upstreamModel: alias },
        },
      },
    });
  });
  after(async () => {
    await test?.close();
    await Promise.all([engine?.stop(), failingEngine?.stop()]);
  });

  async function direct(server: LlamaServer, body: Record<string, unknown>): Promise<{ status: number; text: string }> {
    const response = await fetch(`${server.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: alias, ...body }),
      signal: AbortSignal.timeout(30_000),
    });
    return { status: response.status, text: await response.text() };
  }

  describe('response_format json_object', () => {
    /** The content of a sync answer, or of a stream's chunks, parsed: it must be one JSON object. */
    function jsonObjectIn(content: string): Record<string, unknown> {
      const parsed: unknown = JSON.parse(content);
      assert.ok(typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed), content);
      return parsed as Record<string, unknown>;
    }

    it('holds the content after the reasoning to one JSON object, sync and streamed (same seed)', async () => {
      // Sampled with a seed: greedy decoding of the random model loops inside its reasoning.
      const body = { model: 'glm-4.7', messages, seed: 1, max_tokens: 200, response_format: { type: 'json_object' } };
      const sync = await postJson(test, url, body);
      assert.equal(sync.statusCode, 200, sync.body);
      const answer = answerOf([sync.json() as Record<string, unknown>], 'message');
      assert.equal(answer.finishReason, 'stop', sync.body);
      jsonObjectIn(answer.content);
      assert.ok(answer.reasoning.length > 0, `the reasoning stays free text: ${sync.body}`);
      const stream = await postJson(test, url, { ...body, stream: true });
      assert.equal(stream.statusCode, 200, stream.body);
      assert.deepEqual(answerOf(parseSseBody(stream.body), 'delta'), answer, 'the stream carries the same answer');
    });

    it('without it the same call answers free text (the format is what constrains it)', async () => {
      const sync = await postJson(test, url, { model: 'glm-4.7', messages, seed: 1, max_tokens: 200 });
      assert.equal(sync.statusCode, 200, sync.body);
      const { content } = answerOf([sync.json() as Record<string, unknown>], 'message');
      assert.ok(content.length > 0, sync.body);
      assert.throws(() => jsonObjectIn(content), `free text: ${content}`);
    });
  });

  describe('an engine that fails mid-stream', () => {
    const engineBody = { messages, temperature: 0, seed: 7, max_tokens: 48, chat_template_kwargs: { enable_thinking: true } };

    it('llama-server streams some reasoning, then an in-band error event, then closes without [DONE]', async () => {
      const answer = await direct(failingEngine, { ...engineBody, stream: true });
      assert.equal(answer.status, 200);
      const payloads = enginePayloads(answer.text);
      assert.ok(!payloads.includes('[DONE]'), answer.text);
      const error = JSON.parse(payloads.at(-1) ?? '{}') as { error?: { code?: number; message?: string } };
      assert.equal(error.error?.code, 500, answer.text);
      assert.match(String(error.error?.message), /does not match the expected peg-native format/);
      const chunks = payloads.slice(0, -1).map((payload) => JSON.parse(payload) as Record<string, unknown>);
      assert.ok(answerOf(chunks, 'delta').reasoning.length > 0, `reasoning streamed before the failure: ${answer.text}`);
      // Without a stream the same failure is an HTTP 500.
      const sync = await direct(failingEngine, engineBody);
      assert.equal(sync.status, 500, sync.text);
    });

    it('the platform relays the chunks delivered so far, then an in-band error, then [DONE], with HTTP 200', async () => {
      const engineAnswer = await direct(failingEngine, { ...engineBody, stream: true });
      const engineChunks = enginePayloads(engineAnswer.text)
        .slice(0, -1)
        .map((payload) => JSON.parse(payload) as Record<string, unknown>);
      const delivered = answerOf(engineChunks, 'delta');

      const response = await postJson(test, url, {
        model: 'glm-4.6',
        messages,
        do_sample: false,
        seed: 7,
        max_tokens: 48,
        thinking: { type: 'enabled' },
        stream: true,
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.match(String(response.headers['content-type']), /^text\/event-stream/);
      const events = parseSseBody(response.body);
      const errorEvent = events.at(-1) ?? {};
      assert.deepEqual(Object.keys(errorEvent), ['error'], response.body);
      const error = errorEvent['error'] as { code?: unknown; message?: unknown };
      assert.deepEqual(Object.keys(error).sort(), ['code', 'message']);
      // The engine's 500 maps as an HTTP 500 answer would: code 500, the engine's message quoted.
      assert.equal(error.code, '500');
      assert.match(String(error.message), /answered HTTP 500: .*peg-native format/);
      const chunks = events.slice(0, -1);
      assert.ok(chunks.length > 0, 'chunks came before the error');
      for (const chunk of chunks) assert.equal((chunk['choices'] as Choice[])[0]?.finish_reason, null, 'no chunk finishes the answer');
      assert.deepEqual(answerOf(chunks, 'delta'), { ...delivered, finishReason: null });
      assert.ok(response.body.endsWith(`data: ${JSON.stringify(errorEvent)}\n\ndata: [DONE]\n\n`), 'nothing after [DONE]');
    });

    it('the platform answers the same failure without a stream with an HTTP error status', async () => {
      const response = await postJson(test, url, { model: 'glm-4.6', messages, do_sample: false, seed: 7, max_tokens: 48, thinking: { type: 'enabled' } });
      assertPlatformError(response, { status: 500, code: '500', mentions: ['answered HTTP 500', 'peg-native format'] });
    });
  });
});
