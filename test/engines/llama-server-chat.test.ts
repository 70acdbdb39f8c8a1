import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { startLlamaServer, type LlamaServer } from '../helpers/llama-server.ts';
import { describeWithLlamaServer } from '../helpers/real-engine-suite.ts';
import { parseSseBody } from '../helpers/sse-events.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { writeTinyGlmGguf } from '../helpers/tiny-glm-gguf.ts';
import { tinyGlmAlias, weatherMessages, weatherTool } from './weather-conversation.ts';

/**
 * The platform in front of a real llama.cpp `llama-server` serving a tiny random-weight model that
 * carries GLM-4.7's real chat template: the engine renders the prompt, parses reasoning and tool
 * calls, streams and counts exactly as it does for the real model. The text is noise, so every
 * check compares the platform's answer with a direct call to the same engine (greedy decoding, a
 * fixed seed), or checks what the engine guarantees (finish reasons, counts, a freed slot).
 */
const url = '/paas/v4/chat/completions';
const alias = tinyGlmAlias;
const contextSize = 2048;
const messages = weatherMessages;

interface WireAnswer {
  content: string;
  reasoning: string | undefined;
  toolCalls: { name: string; arguments: string }[];
  finishReason: string;
  usage: { prompt_tokens: number; completion_tokens: number };
}

interface Choice {
  message?: { content?: string | null; reasoning_content?: string; tool_calls?: { function: { name: string; arguments: string } }[] };
  delta?: { content?: string; reasoning_content?: string; tool_calls?: { index: number; function: { name?: string; arguments?: string } }[] };
  finish_reason: string | null;
}

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** A non-streamed answer (platform or engine) in comparable form. */
function syncAnswer(body: Record<string, unknown>): WireAnswer {
  const choice = (body['choices'] as Choice[])[0];
  assert.ok(choice?.message !== undefined, JSON.stringify(body));
  const usage = body['usage'] as Usage;
  return {
    content: choice.message.content ?? '',
    reasoning: choice.message.reasoning_content || undefined,
    toolCalls: (choice.message.tool_calls ?? []).map((call) => ({ name: call.function.name, arguments: call.function.arguments })),
    finishReason: String(choice.finish_reason),
    usage: { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens },
  };
}

/** A streamed answer (platform or engine) put together from its chunks. */
function streamedAnswer(events: readonly Record<string, unknown>[]): WireAnswer {
  let content = '';
  let reasoning = '';
  let finishReason = '';
  let usage: Usage | undefined;
  const calls = new Map<number, { name: string; arguments: string }>();
  for (const event of events) {
    if (event['usage'] !== undefined && event['usage'] !== null) usage = event['usage'] as Usage;
    const choice = (event['choices'] as Choice[])[0];
    if (choice === undefined) continue;
    content += choice.delta?.content ?? '';
    reasoning += choice.delta?.reasoning_content ?? '';
    for (const call of choice.delta?.tool_calls ?? []) {
      const slot = calls.get(call.index) ?? { name: '', arguments: '' };
      slot.name += call.function.name ?? '';
      slot.arguments += call.function.arguments ?? '';
      calls.set(call.index, slot);
    }
    if (choice.finish_reason !== null) finishReason = choice.finish_reason;
  }
  assert.ok(usage !== undefined, 'the stream reports usage');
  return {
    content,
    reasoning: reasoning || undefined,
    toolCalls: [...calls.values()],
    finishReason,
    usage: { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens },
  };
}

describeWithLlamaServer('chat completions against a real llama-server (GLM-4.7 template, tiny model)', (binary) => {
  let engine: LlamaServer;
  let test: TestPlatform;

  before(async () => {
    // Prompt caching off: every answer is computed from an empty cache, so a platform call and a
    // direct call with the same body get the same tokens, whatever ran before.
    engine = await startLlamaServer({ binary, modelPath: writeTinyGlmGguf(), alias, contextSize, extraArgs: ['--no-cache-prompt'] });
    // glm-4.7 always thinks (spec); glm-4.6 takes thinking {type: 'disabled'}. Both are the same engine:
    // glm-4.7 is configured as llama.cpp (whole answers asked for as streams from the first call),
    // glm-4.6 leaves the kind to be found from the engine's answers.
    const entry = { backend: 'openai-compatible' as const, baseUrl: engine.baseUrl, upstreamModel: alias };
    test = await startTestPlatform({ config: { models: { 'glm-4.7': { ...entry, engine: 'llama.cpp' }, 'glm-4.6': entry } } });
  });
  after(async () => {
    await test?.close();
    await engine?.stop();
  });

  /** The engine's own answer to the body the platform sends it. */
  async function direct(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const response = await fetch(`${engine.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: alias, ...body }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    return JSON.parse(text) as Record<string, unknown>;
  }

  async function directStream(body: Record<string, unknown>): Promise<Record<string, unknown>[]> {
    const response = await fetch(`${engine.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: alias, ...body, stream: true, stream_options: { include_usage: true } }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    return parseSseBody(text);
  }

  async function platform(body: Record<string, unknown>, model = 'glm-4.7'): Promise<Record<string, unknown>> {
    const response = await postJson(test, url, { model, ...body });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as Record<string, unknown>;
  }

  async function platformStream(body: Record<string, unknown>): Promise<Record<string, unknown>[]> {
    const response = await postJson(test, url, { model: 'glm-4.7', ...body, stream: true });
    assert.equal(response.statusCode, 200, response.body);
    assert.match(String(response.headers['content-type']), /^text\/event-stream/);
    return parseSseBody(response.body);
  }

  describe('text, reasoning and usage', () => {
    it('answers sync and streamed with the text, reasoning and usage of a direct call (greedy, same seed)', async () => {
      const engineBody = { messages, temperature: 0, seed: 7, max_tokens: 48, chat_template_kwargs: { enable_thinking: true } };
      const expected = syncAnswer(await direct(engineBody));
      assert.ok(expected.usage.prompt_tokens > 10 && expected.usage.completion_tokens > 0, JSON.stringify(expected));

      const platformBody = { messages, do_sample: false, seed: 7, max_tokens: 48 };
      const sync = await platform(platformBody);
      assert.deepEqual(syncAnswer(sync), expected);
      const events = await platformStream(platformBody);
      assert.deepEqual(streamedAnswer(events), expected);
      assert.deepEqual(streamedAnswer(await directStream(engineBody)), expected, 'the engine streams what it answers');
    });

    it('streams in the platform framing: one data line per event, role assistant, finish and usage on the last chunk, then [DONE]', async () => {
      const events = await platformStream({ messages, do_sample: false, max_tokens: 12 });
      assert.ok(events.length >= 3);
      const ids = new Set(events.map((event) => event['id']));
      assert.equal(ids.size, 1, 'every chunk carries the same id');
      for (const event of events.slice(0, -1)) {
        const choice = (event['choices'] as Choice[])[0];
        assert.equal(choice?.finish_reason, null);
        assert.equal((choice?.delta as { role?: string } | undefined)?.role, 'assistant');
        assert.equal(event['usage'], undefined, 'only the last chunk has usage');
      }
      const last = events.at(-1) ?? {};
      const lastChoice = (last['choices'] as Choice[])[0];
      assert.equal(lastChoice?.finish_reason, 'length');
      assert.deepEqual(lastChoice?.delta, { role: 'assistant', content: '' });
      assert.equal((last['usage'] as Usage).completion_tokens, 12);
      assert.equal(last['model'], 'glm-4.7');
    });

    it('thinking enabled gives reasoning_content, disabled gives none, as the engine does; glm-4.7 always thinks', async () => {
      const thinking = syncAnswer(await direct({ messages, temperature: 0, max_tokens: 24, chat_template_kwargs: { enable_thinking: true } }));
      const notThinking = syncAnswer(await direct({ messages, temperature: 0, max_tokens: 24, chat_template_kwargs: { enable_thinking: false } }));
      assert.ok(thinking.reasoning !== undefined && thinking.reasoning.length > 0, 'the template opens <think>: the answer reasons');
      assert.equal(notThinking.reasoning, undefined, 'the template closes thinking: no reasoning_content');
      const greedy = { messages, do_sample: false, max_tokens: 24 };
      assert.deepEqual(syncAnswer(await platform({ ...greedy, thinking: { type: 'enabled' } }, 'glm-4.6')), thinking);
      assert.deepEqual(syncAnswer(await platform({ ...greedy, thinking: { type: 'disabled' } }, 'glm-4.6')), notThinking);
      assert.deepEqual(syncAnswer(await platform({ ...greedy, thinking: { type: 'disabled' } }, 'glm-4.7')), thinking);
    });

    it('ends at max_tokens with finish_reason length and exactly that many completion tokens', async () => {
      const answer = syncAnswer(await platform({ messages, do_sample: false, max_tokens: 5, thinking: { type: 'disabled' } }, 'glm-4.6'));
      assert.equal(answer.finishReason, 'length');
      assert.equal(answer.usage.completion_tokens, 5);
    });

    it('stops before a stop word, with finish_reason stop', async () => {
      const free = syncAnswer(await platform({ messages, do_sample: false, max_tokens: 40, thinking: { type: 'disabled' } }, 'glm-4.6'));
      // A stop word from the middle of the greedy answer: the answer then ends just before it.
      const stopWord = free.content.slice(10, 13);
      assert.equal(stopWord.length, 3, `the greedy answer is long enough: ${JSON.stringify(free.content)}`);
      const prefix = free.content.slice(0, free.content.indexOf(stopWord));
      const stopped = syncAnswer(await platform({ messages, do_sample: false, max_tokens: 40, thinking: { type: 'disabled' }, stop: [stopWord] }, 'glm-4.6'));
      assert.equal(stopped.finishReason, 'stop');
      assert.equal(stopped.content, prefix);
    });
  });

  describe('tools', () => {
    it('returns the tool call the engine parsed from the GLM format, as the engine does', async () => {
      // The model is random: it calls the tool on some seeds; the lazy grammar llama-server
      // starts at <tool_call> keeps every call valid for the declared schema.
      let calls = 0;
      for (let seed = 1; seed <= 12 && calls === 0; seed += 1) {
        const engineBody = {
          messages,
          tools: [weatherTool],
          tool_choice: 'auto',
          seed,
          temperature: 1,
          top_p: 0.95,
          max_tokens: 96,
          chat_template_kwargs: { enable_thinking: false },
        };
        const expected = syncAnswer(await direct(engineBody));
        const answer = syncAnswer(await platform({ messages, tools: [weatherTool], seed, max_tokens: 96, thinking: { type: 'disabled' } }, 'glm-4.6'));
        assert.deepEqual(answer, expected, `seed ${seed}`);
        // A call cut by max_tokens comes back as the engine sent it (finish_reason length, the
        // arguments unfinished): the deepEqual above covers it; only whole calls are checked below.
        if (answer.finishReason !== 'tool_calls') continue;
        calls += 1;
        assert.ok(answer.toolCalls.length > 0);
        for (const call of answer.toolCalls) {
          assert.equal(call.name, 'get_weather');
          const args = JSON.parse(call.arguments) as Record<string, unknown>;
          assert.deepEqual(Object.keys(args), ['city']);
          assert.equal(typeof args['city'], 'string');
        }
      }
      assert.equal(calls, 1, 'one of twelve seeds gives a tool call');
    });
  });

  describe('connections', () => {
    it('relays back-to-back streams whole although llama-server closes the connection after each one', async () => {
      // llama-server answers keep-alive but closes after every streamed answer: a client that
      // writes the next request on that connection must not turn it into a failed answer.
      for (let round = 0; round < 20; round += 1) {
        const body = { messages, do_sample: false, max_tokens: 4, thinking: { type: 'disabled' } };
        const answer = round % 4 === 3 ? syncAnswer(await platform(body, 'glm-4.6')) : streamedAnswer(await platformStream({ ...body, model: 'glm-4.6' }));
        assert.equal(answer.finishReason, 'length', `round ${round}`);
        assert.equal(answer.usage.completion_tokens, 4, `round ${round}`);
      }
    });
  });

  describe('limits', () => {
    it('refuses a prompt longer than the context with 1261, sync and streamed', async () => {
      const long = [{ role: 'user', content: 'x '.repeat(contextSize + 200) }];
      for (const stream of [false, true]) {
        const response = await postJson(test, url, { model: 'glm-4.7', messages: long, stream });
        assertPlatformError(response, { status: 400, code: '1261', mentions: ['context'] });
      }
    });
  });
});

describeWithLlamaServer('client aborts against a real llama-server (a tiny model whose answers never end)', (binary) => {
  // A context large enough that an answer left running takes seconds, cheap for the tiny model.
  const longContext = 16_384;
  let engine: LlamaServer;
  let test: TestPlatform;
  let platformOrigin: string;

  before(async () => {
    engine = await startLlamaServer({ binary, modelPath: writeTinyGlmGguf({ endless: true }), alias, contextSize: longContext });
    test = await startTestPlatform({
      config: { models: { 'glm-4.7': { backend: 'openai-compatible', baseUrl: engine.baseUrl, upstreamModel: alias, engine: 'llama.cpp' } } },
    });
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    platformOrigin = `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await test?.close();
    await engine?.stop();
  });

  /** How many of the engine's slots are generating (`GET /slots`, enabled by `--slots`). */
  async function processingSlots(): Promise<number> {
    const response = await fetch(`${engine.origin}/slots`, { signal: AbortSignal.timeout(5_000) });
    const slots = (await response.json()) as { is_processing: boolean }[];
    return slots.filter((slot) => slot.is_processing).length;
  }

  /** Waits (at most a second) until no slot generates; returns how many still do. */
  async function slotsBusyAfterOneSecond(): Promise<number> {
    const leftAt = Date.now();
    let busy = await processingSlots();
    while (busy > 0 && Date.now() - leftAt < 1_000) {
      await sleep(25);
      busy = await processingSlots();
    }
    return busy;
  }

  async function untilGenerating(): Promise<void> {
    const deadline = Date.now() + 10_000;
    while ((await processingSlots()) === 0) {
      assert.ok(Date.now() < deadline, 'the engine never started generating');
      await sleep(10);
    }
  }

  // Left alone, either answer runs for seconds.
  const endless = { model: 'glm-4.7', messages, max_tokens: longContext - 200 };

  it('frees the engine slot within a second when the client leaves mid-stream', async () => {
    const controller = new AbortController();
    const response = await fetch(`${platformOrigin}${url}`, {
      method: 'POST',
      headers: { authorization: test.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ ...endless, stream: true }),
      signal: controller.signal,
    });
    assert.equal(response.status, 200);
    assert.ok(response.body !== null);
    const reader = response.body.getReader();
    let received = '';
    while ((received.match(/\n\n/g) ?? []).length < 3) {
      const { value, done } = await reader.read();
      assert.ok(!done, 'the answer is long');
      received += new TextDecoder().decode(value);
    }
    assert.ok((await processingSlots()) > 0, 'the engine is generating');
    controller.abort();
    await reader.cancel().catch(() => undefined);
    assert.equal(await slotsBusyAfterOneSecond(), 0, 'a slot still generates a second after the client left');
  });

  it('frees the engine slot within a second when the client of a non-streamed call leaves', async () => {
    // The platform asks llama.cpp's server for a whole answer as a stream: the server notices a
    // closed connection at its next token only while it streams.
    const controller = new AbortController();
    const answer = fetch(`${platformOrigin}${url}`, {
      method: 'POST',
      headers: { authorization: test.authorization, 'content-type': 'application/json' },
      body: JSON.stringify(endless),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    await untilGenerating();
    controller.abort();
    assert.ok((await answer) instanceof Error, 'the call was aborted, not answered');
    assert.equal(await slotsBusyAfterOneSecond(), 0, 'a slot still generates a second after the client left');
  });
});
