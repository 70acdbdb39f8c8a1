import assert from 'node:assert/strict';
import { basename, dirname } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createLlamaCppBackend } from '../../src/backends/llama-cpp/llama-cpp.backend.ts';
import { LlamaEngine } from '../../src/backends/llama-cpp/llama-engine.ts';
import { readLlamaSettings } from '../../src/backends/llama-cpp/llama-settings.ts';
import { SequencePool } from '../../src/backends/llama-cpp/sequence-pool.ts';
import { StopWordMatcher } from '../../src/backends/llama-cpp/stop-word-matcher.ts';
import { readToolCall } from '../../src/backends/llama-cpp/tool-call-reader.ts';
import type { ChatPartBatch, ChatStreamPart } from '../../src/core/chat/chat-stream-part.ts';
import type { ChatMessage, ChatRequest, FunctionTool } from '../../src/core/chat/chat-types.ts';
import type { ChatModel, TokenCounter } from '../../src/core/chat/chat-model.ts';
import type { BackendContext, BackendResources } from '../../src/core/backends/backend.ts';
import type { LlamaCppSettings } from '../../src/backends/llama-cpp/llama-cpp-settings.ts';
import { ApiError } from '../../src/core/errors/api-error.ts';
import { EngineFailure, type EngineFailureKind } from '../../src/core/errors/engine-failure.ts';
import { assertEngineFailure, rejection } from '../helpers/api-error-assertions.ts';
import { writeTinyGguf } from '../helpers/tiny-gguf.ts';
import { glmTinyChat } from '../helpers/tiny-glm-gguf.ts';
import { renderPrompt } from '../../src/backends/llama-cpp/rendered-prompt.ts';
import { unusedResources } from '../helpers/backend-resources.ts';
import { chatRequest as baseChatRequest } from '../helpers/chat-request.ts';

/**
 * The real llama.cpp engine (node-llama-cpp's prebuilt CPU binary) on a tiny random-weight GGUF
 * the test writes itself. The weights are random, so the text is noise: the tests check what the
 * engine guarantees (finish reasons, token counts, grammar-valid output, aborts), never wording.
 */
const modelPath = writeTinyGguf();

function backendContext(entry: Partial<LlamaCppSettings>): BackendContext<LlamaCppSettings> {
  // The path is given relative to the config directory, as a config file would.
  return {
    modelName: 'tiny-llama',
    entry: { backend: 'llama-cpp', modelPath: basename(modelPath), threads: 1, ...entry },
    configDir: dirname(modelPath),
    resources: unusedResources,
  };
}

interface LlamaBackend {
  readonly chat: ChatModel;
  readonly tokenizer: TokenCounter;
  close(): Promise<void>;
}

function openBackend(entry: Partial<LlamaCppSettings>): LlamaBackend {
  const backend = createLlamaCppBackend(backendContext(entry));
  const { chat, tokenizer } = backend;
  assert.ok(chat !== undefined && tokenizer !== undefined && backend.close !== undefined);
  return { chat, tokenizer, close: async () => backend.close?.() };
}

function chatRequest(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return baseChatRequest({
    model: 'tiny-llama',
    messages: [{ role: 'user', content: 'Hello there, what is the weather in the city?' }],
    greedy: true,
    maxTokens: 24,
    thinking: { enabled: false, effort: undefined },
    seed: 11,
    ...overrides,
  });
}

async function collect(batches: AsyncIterable<ChatPartBatch>): Promise<ChatStreamPart[]> {
  const collected: ChatStreamPart[] = [];
  for await (const parts of batches) collected.push(...parts);
  return collected;
}

function streamedText(parts: readonly ChatStreamPart[]): string {
  return parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
}

async function rejectsWithCode(promise: Promise<unknown>, code: string, pattern?: RegExp): Promise<ApiError> {
  const error = await promise.then(
    () => assert.fail(`expected ApiError ${code}`),
    (thrown: unknown) => thrown,
  );
  assert.ok(error instanceof ApiError, `expected ApiError, got ${String(error)}`);
  assert.equal(error.code, code, error.message);
  if (pattern !== undefined) assert.match(error.message, pattern);
  return error;
}

async function rejectsWithKind(promise: Promise<unknown>, kind: EngineFailureKind, pattern?: RegExp): Promise<EngineFailure> {
  const error = await rejection(promise);
  assertEngineFailure(error, kind);
  if (pattern !== undefined) assert.match(error.message, pattern);
  return error;
}

const weatherTools: FunctionTool[] = [
  {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string', maxLength: 12 }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
      required: ['city', 'unit'],
    },
  },
  { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string', enum: ['UTC', 'CET'] } }, required: ['zone'] } },
];

/** The schemas above, checked by hand (independently of the engine's validator). */
function assertValidWeatherCall(call: { name: string; arguments: string }): void {
  const args = JSON.parse(call.arguments) as Record<string, unknown>;
  if (call.name === 'get_weather') {
    assert.equal(typeof args['city'], 'string');
    assert.ok([...(args['city'] as string)].length <= 12, `city too long: ${call.arguments}`);
    assert.ok(['celsius', 'fahrenheit'].includes(args['unit'] as string), call.arguments);
  } else {
    assert.equal(call.name, 'get_time');
    assert.ok(['UTC', 'CET'].includes(args['zone'] as string), call.arguments);
  }
}

describe('llama-cpp backend on a generated GGUF', () => {
  let shared: LlamaBackend;
  let small: LlamaBackend;

  before(() => {
    shared = openBackend({ contextSize: 2048, parallelSequences: 2 });
    small = openBackend({ contextSize: 256, parallelSequences: 1 });
  });

  after(async () => {
    await shared.close();
    await small.close();
  });

  it('generates, and streams the same answer part by part with the same usage', async () => {
    const request = chatRequest({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say something.' },
      ],
    });
    const result = await shared.chat.generate(request);
    const parts = await collect(shared.chat.stream(request));
    const last = parts.at(-1);
    assert.equal(last?.type, 'finish');
    assert.equal(parts.filter((part) => part.type === 'finish').length, 1);
    assert.ok(parts.filter((part) => part.type === 'text').length > 1, 'text arrives in several parts');
    assert.equal(streamedText(parts), result.content);
    assert.ok(result.content.length > 0);
    assert.equal(last.type === 'finish' && last.reason, result.finishReason);
    assert.equal(last.type === 'finish' && last.usage.completionTokens, result.usage.completionTokens);
    assert.equal(last.type === 'finish' && last.usage.promptTokens, result.usage.promptTokens);
    assert.deepEqual(result.toolCalls, []);
  });

  it('stops at maxTokens with finish length and exactly that many completion tokens', async () => {
    const result = await shared.chat.generate(chatRequest({ maxTokens: 7 }));
    assert.equal(result.finishReason, 'length');
    assert.equal(result.usage.completionTokens, 7);
    const limited = await shared.chat.generate(chatRequest({ maxTokens: undefined, maxTokensLimit: 5 }));
    assert.equal(limited.finishReason, 'length');
    assert.equal(limited.usage.completionTokens, 5);
  });

  it('honours a stop word found in the unconstrained answer, sync and streamed', async () => {
    const free = await shared.chat.generate(chatRequest({ maxTokens: 40 }));
    // A two-character piece of plain ASCII well inside the answer, first seen at `cut`.
    const printable = /^[\x21-\x7e]{2}$/;
    let stop: string | undefined;
    for (let index = 3; index < free.content.length - 2 && stop === undefined; index += 1) {
      const candidate = free.content.slice(index, index + 2);
      if (printable.test(candidate)) stop = candidate;
    }
    assert.ok(stop !== undefined, `no usable stop word in ${JSON.stringify(free.content)}`);
    const expected = free.content.slice(0, free.content.indexOf(stop));

    const stopped = await shared.chat.generate(chatRequest({ maxTokens: 40, stop: [stop] }));
    assert.equal(stopped.finishReason, 'stop');
    assert.equal(stopped.content, expected);
    assert.ok(stopped.usage.completionTokens < 40);

    const parts = await collect(shared.chat.stream(chatRequest({ maxTokens: 40, stop: ['never-said', stop] })));
    assert.equal(streamedText(parts), expected);
    assert.ok(parts.every((part) => part.type !== 'text' || !part.text.includes(stop)));
    const finish = parts.at(-1);
    assert.ok(finish?.type === 'finish' && finish.reason === 'stop');
  });

  it('answers json_object with a JSON object whenever the answer is complete', async () => {
    let complete = 0;
    for (const seed of [1, 2, 3, 4, 5]) {
      const result = await shared.chat.generate(chatRequest({ greedy: false, temperature: 0.9, seed, maxTokens: 120, responseFormat: 'json_object' }));
      if (result.finishReason === 'length') continue;
      assert.equal(result.finishReason, 'stop');
      const value: unknown = JSON.parse(result.content);
      assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value), result.content);
      complete += 1;
    }
    assert.ok(complete >= 1, 'at least one json_object answer completes within 120 tokens');
  });

  it('answers a user turn with tools by a valid call of a declared tool, or by no call at all', async () => {
    // Random weights sample bytes that are no UTF-8, where the grammar and JSON Schema count a
    // string's length differently: such a call must never come out as a valid one.
    let valid = 0;
    for (const seed of [1, 2, 3, 4, 5]) {
      const request = chatRequest({ greedy: false, temperature: 1, seed, maxTokens: 200, tools: weatherTools });
      let parts: ChatStreamPart[];
      try {
        parts = await collect(shared.chat.stream(request));
      } catch (error) {
        assert.ok(error instanceof EngineFailure && error.kind === 'bad-answer' && error.message.includes('tool call that is not valid'), String(error));
        continue;
      }
      const finish = parts.at(-1);
      assert.ok(finish?.type === 'finish');
      if (finish.reason === 'length') continue;
      assert.equal(finish.reason, 'tool_calls');
      const start = parts.find((part) => part.type === 'tool-call-start');
      assert.ok(start?.type === 'tool-call-start');
      assert.match(start.id, /^call_/);
      const callArguments = parts.flatMap((part) => (part.type === 'tool-call-delta' ? [part.argumentsDelta] : [])).join('');
      assertValidWeatherCall({ name: start.name, arguments: callArguments });
      assert.equal(streamedText(parts), '', 'a tool call turn sends no text');
      assert.ok(finish.usage.completionTokens > 0);
      valid += 1;
    }
    assert.ok(valid >= 2, `most seeds yield a valid call (${valid} of 5)`);

    const result = await shared.chat.generate(chatRequest({ greedy: false, temperature: 1, seed: 4, maxTokens: 200, tools: weatherTools }));
    assert.equal(result.finishReason, 'tool_calls');
    const [call] = result.toolCalls;
    assert.ok(call !== undefined && result.toolCalls.length === 1);
    assertValidWeatherCall(call);
  });

  it('answers in text after tool results, with the tool turns in the prompt', async () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' }] },
      { role: 'tool', toolCallId: 'call_1', content: '{"temperature":21}' },
    ];
    const request = chatRequest({ messages, tools: weatherTools, maxTokens: 6 });
    const result = await shared.chat.generate(request);
    assert.deepEqual(result.toolCalls, []);
    assert.ok(['stop', 'length'].includes(result.finishReason));
    const withoutResult = await shared.tokenizer.countPromptTokens({ messages: messages.slice(0, 2), tools: weatherTools, signal: request.signal });
    assert.ok(result.usage.promptTokens > withoutResult, 'the tool result is part of the prompt');
  });

  it('counts prompt tokens exactly as the chat answer reports them', async () => {
    const cases: Partial<ChatRequest>[] = [
      {},
      {
        messages: [
          { role: 'system', content: 'You are terse.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Two' },
              { type: 'text', text: 'parts' },
            ],
          },
        ],
      },
      { tools: weatherTools, maxTokens: 200 },
    ];
    for (const overrides of cases) {
      const request = chatRequest(overrides);
      const counted = await shared.tokenizer.countPromptTokens(request);
      const result = await shared.chat.generate(request);
      assert.equal(result.usage.promptTokens, counted);
      assert.ok(counted > 5);
    }
  });

  it('reuses the cached prefix of the previous request on the same sequence', async () => {
    const request = chatRequest({ maxTokens: 3 });
    await small.chat.generate(request);
    const again = await small.chat.generate(request);
    assert.equal(again.usage.cachedTokens, again.usage.promptTokens - 1);
  });

  it('refuses a prompt longer than the context with 1261 before generating', async () => {
    const long = 'the weather in the city is nice and warm today '.repeat(12);
    const request = chatRequest({ messages: [{ role: 'user', content: long }] });
    const counted = await small.tokenizer.countPromptTokens(request);
    assert.ok(counted > 256);
    const iterator = small.chat.stream(request)[Symbol.asyncIterator]();
    await rejectsWithKind(iterator.next(), 'context-too-long', new RegExp(`^Prompt exceeds max length: ${counted} tokens, context size 256`));
    await rejectsWithKind(small.chat.generate(request), 'context-too-long');
  });

  it('ends with model_context_window_exceeded when the context fills up', async () => {
    const result = await small.chat.generate(chatRequest({ maxTokens: undefined }));
    assert.equal(result.finishReason, 'model_context_window_exceeded');
    assert.equal(result.usage.promptTokens + result.usage.completionTokens, 256);
  });

  it('decodes two requests at once with parallelSequences 2', async () => {
    const first = shared.chat.stream(chatRequest({ maxTokens: 20, seed: 1, greedy: false }))[Symbol.asyncIterator]();
    const secondRequest = chatRequest({ maxTokens: 20, seed: 2, greedy: false, messages: [{ role: 'user', content: 'Another question.' }] });
    const second = shared.chat.stream(secondRequest)[Symbol.asyncIterator]();
    // The first answer holds its sequence while it waits here; the second can only start on the other one.
    assert.equal((await first.next()).done, false);
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the second request did not start')), 5000).unref());
    assert.equal((await Promise.race([second.next(), timeout])).done, false);
    for (const answer of [first, second]) {
      const parts = await collect({ [Symbol.asyncIterator]: () => answer });
      const finish = parts.at(-1);
      assert.ok(finish?.type === 'finish' && ['stop', 'length'].includes(finish.reason));
    }
  });

  it('refuses image parts for this text-only engine with 1214', async () => {
    const messages: ChatMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', url: 'data:image/png;base64,AAAA' },
        ],
      },
    ];
    await rejectsWithCode(shared.chat.generate(chatRequest({ messages })), '1214', /content\[1\]/);
    await rejectsWithCode(shared.tokenizer.countPromptTokens({ messages, tools: [], signal: new AbortController().signal }), '1214');
  });
});

describe('llama-cpp aborts and loading', () => {
  it('stops generating promptly on abort and frees the sequence, also for a request waiting in line', async () => {
    const backend = openBackend({ contextSize: 4096, parallelSequences: 1 });
    try {
      await backend.chat.generate(chatRequest({ maxTokens: 1 }));
      const controller = new AbortController();
      const waiting = new AbortController();
      const started = Date.now();
      let textParts = 0;
      const running = (async () => {
        for await (const [part] of backend.chat.stream(chatRequest({ maxTokens: 4000, signal: controller.signal }))) {
          if (part?.type !== 'text') continue;
          textParts += 1;
          if (textParts === 3) {
            // A second request queues behind the only sequence; its client goes away first.
            const queued = backend.chat.generate(chatRequest({ maxTokens: 2, signal: waiting.signal }));
            waiting.abort();
            await assert.rejects(queued, { name: 'AbortError' });
            controller.abort();
          }
        }
      })();
      await assert.rejects(running, { name: 'AbortError' });
      assert.ok(textParts <= 5, `generation went on after the abort: ${textParts} parts`);
      assert.ok(Date.now() - started < 3000);
      const after = await backend.chat.generate(chatRequest({ maxTokens: 4 }));
      assert.equal(after.usage.completionTokens, 4, 'the sequence was released');
    } finally {
      await backend.close();
    }
  });

  it('says which device runs the model, and refuses gpuLayers where node-llama-cpp finds no GPU', async () => {
    const announced: string[] = [];
    const announce = (_fields: unknown, message: string): number => announced.push(message);
    const resources = Object.assign(Object.create(unusedResources) as BackendResources, { announce });
    const engine = new LlamaEngine(readLlamaSettings({ ...backendContext({ contextSize: 256 }), resources }));
    const { model } = await engine.load();
    const gpu = model.llama.gpu;
    await engine.close();
    const offloaded = new LlamaEngine(readLlamaSettings({ ...backendContext({ contextSize: 256, gpuLayers: 2 }), resources }));
    if (gpu === false) {
      assert.deepEqual(announced, ['model tiny-llama loaded on the CPU (1 threads)']);
      await rejectsWithKind(offloaded.load(), 'misconfigured', /asks for gpuLayers: 2, but node-llama-cpp found no CUDA or Vulkan GPU .* or 0 for the CPU/);
    } else {
      assert.match(announced[0] ?? '', new RegExp(`^model tiny-llama loaded on .*\\(${gpu}, \\d+ of \\d+ layers offloaded\\)$`));
      assert.equal((await offloaded.load()).model.gpuLayers, 2);
      await offloaded.close();
    }
  });

  it('loads once for concurrent first calls, and names a missing file with 1221', async () => {
    const engine = new LlamaEngine(readLlamaSettings(backendContext({ contextSize: 256 })));
    const [first, second] = await Promise.all([engine.load(), engine.load()]);
    assert.equal(first, second);
    await engine.close();

    const missing = openBackend({ modelPath: 'no-such-model.gguf' });
    await rejectsWithKind(missing.chat.generate(chatRequest()), 'misconfigured', /no-such-model\.gguf' does not exist/);
    assert.throws(
      () => createLlamaCppBackend({ modelName: 'x', entry: { backend: 'llama-cpp' } as LlamaCppSettings, configDir: '.', resources: unusedResources }),
      /modelPath/,
    );
  });
});

describe('llama-cpp output checks', () => {
  it('accepts a tool call only when it is a declared tool with schema-valid arguments', () => {
    const tools: FunctionTool[] = [{ name: 'count', parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }];
    assert.equal(readToolCall('{"name":"count","arguments":{"n":1e2}}', tools, 'm').arguments, '{"n":100}');
    for (const output of [
      '{"name":"count","arguments":{"n":1e400}}',
      '{"name":"count","arguments":{"n":1.5}}',
      '{"name":"other","arguments":{}}',
      '{"name":"count"',
      '{"name":"count","arguments":{}}',
    ]) {
      assert.throws(
        () => readToolCall(output, tools, 'm'),
        (error: unknown) => error instanceof EngineFailure && error.kind === 'bad-answer',
        output,
      );
    }
  });

  it('holds back a stop word split across pieces and never sends any of it', () => {
    const matcher = new StopWordMatcher(['END']);
    assert.deepEqual(matcher.push('abcE'), { text: 'abc', stopped: false });
    assert.deepEqual(matcher.push('N'), { text: '', stopped: false });
    assert.deepEqual(matcher.push('Dxyz'), { text: '', stopped: true });
    const unfinished = new StopWordMatcher(['END']);
    assert.deepEqual(unfinished.push('aEN'), { text: 'a', stopped: false });
    assert.equal(unfinished.flush(), 'EN');
  });

  it('hands sequences out first come, first served', async () => {
    const pool = new SequencePool(['only']);
    const first = await pool.acquire(new AbortController().signal);
    const order: string[] = [];
    const second = pool.acquire(new AbortController().signal).then(() => order.push('second'));
    const third = pool.acquire(new AbortController().signal).then(() => order.push('third'));
    assert.equal(pool.waiting, 2);
    pool.release(first);
    await second;
    pool.release('only');
    await third;
    assert.deepEqual(order, ['second', 'third']);
  });
});

describe("llama-cpp thinking on a GGUF with GLM-4.7's chat template", () => {
  // GLM's format with `</think>` pushed up by a fixed amount, so that some answers close their reasoning.
  const glmPath = writeTinyGguf({ chat: { ...glmTinyChat, logitOffsets: new Map([...(glmTinyChat.logitOffsets ?? []), ['</think>', 1.5]]) } });
  const glmContext = (): BackendContext<LlamaCppSettings> => ({
    modelName: 'tiny-glm',
    entry: { backend: 'llama-cpp', modelPath: basename(glmPath), threads: 1, contextSize: 1024, parallelSequences: 1 },
    configDir: dirname(glmPath),
    resources: unusedResources,
  });
  let glm: LlamaBackend;
  before(() => {
    const backend = createLlamaCppBackend(glmContext());
    assert.ok(backend.chat !== undefined && backend.tokenizer !== undefined);
    const { chat, tokenizer } = backend;
    glm = { chat, tokenizer, close: async () => backend.close?.() };
  });
  after(async () => {
    await glm.close();
  });

  const toolTurns: ChatMessage[] = [
    { role: 'user', content: 'Weather in Paris?' },
    { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' }] },
    { role: 'tool', toolCallId: 'call_1', content: '{"temperature":21}' },
  ];

  it("ends the prompt with the template's generation prompt: an open think block when thinking, the closed one when not", async () => {
    const engine = new LlamaEngine(readLlamaSettings(glmContext()));
    try {
      const loaded = await engine.load();
      for (const conversation of [[{ role: 'user', content: 'Hello there' }] satisfies ChatMessage[], toolTurns]) {
        for (const [thinking, end, reasoningOpen] of [
          [true, '<think>', true],
          [undefined, '<think>', true],
          [false, '</think>', false],
        ] as const) {
          const prompt = renderPrompt(loaded, conversation, [], thinking);
          const tail = loaded.model.detokenize(prompt.tokens.slice(-2), true);
          assert.equal(tail, `<|assistant|>${end}`, `thinking ${thinking}, ${conversation.length} messages`);
          assert.equal(prompt.reasoningOpen, reasoningOpen);
        }
      }
    } finally {
      await engine.close();
    }
    for (const enabled of [true, false]) {
      const request = chatRequest({ model: 'tiny-glm', maxTokens: 2, thinking: { enabled, effort: undefined } });
      const counted = await glm.tokenizer.countPromptTokens(request);
      assert.equal((await glm.chat.generate(request)).usage.promptTokens, counted, `thinking ${enabled}`);
    }
  });

  it('thinking on: the answer starts as reasoning up to </think>, then content, the same streamed and whole', async () => {
    let split = 0;
    let reasoned = 0;
    for (let seed = 1; seed <= 6; seed += 1) {
      const request = chatRequest({ model: 'tiny-glm', greedy: false, temperature: 1, maxTokens: 64, seed, thinking: { enabled: true, effort: undefined } });
      const whole = await glm.chat.generate(request);
      const parts = await collect(glm.chat.stream(request));
      const streamedReasoning = parts.flatMap((part) => (part.type === 'reasoning' ? [part.text] : [])).join('');
      assert.equal(streamedReasoning, whole.reasoningContent, `seed ${seed}`);
      assert.equal(streamedText(parts), whole.content, `seed ${seed}`);
      assert.ok(!whole.reasoningContent.includes('</think>') && !whole.reasoningContent.includes('<think>'), whole.reasoningContent);
      if (whole.reasoningContent.length > 0) reasoned += 1;
      if (whole.reasoningContent.length > 0 && whole.content.length > 0) split += 1;
    }
    // The prompt opened the think block, so what the model writes first is reasoning (a model may also close it at once).
    assert.ok(reasoned >= 3, `only ${reasoned} of 6 answers had reasoning`);
    assert.ok(split > 0, 'at least one answer closed its reasoning with </think> and went on in content');
  });

  it('thinking off: no reasoning at all', async () => {
    for (let seed = 1; seed <= 3; seed += 1) {
      const request = chatRequest({ model: 'tiny-glm', greedy: false, temperature: 1, maxTokens: 32, seed, thinking: { enabled: false, effort: undefined } });
      const whole = await glm.chat.generate(request);
      assert.equal(whole.reasoningContent, '', `seed ${seed}`);
      assert.ok(whole.content.length > 0);
      const parts = await collect(glm.chat.stream(request));
      assert.ok(
        parts.every((part) => part.type !== 'reasoning'),
        `seed ${seed}`,
      );
    }
  });
});
