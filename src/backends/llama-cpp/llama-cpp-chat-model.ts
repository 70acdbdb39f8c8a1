import { collectChatStream } from '../../core/chat/collect-chat-stream.ts';
import { LlamaText, type LlamaGrammar } from 'node-llama-cpp';
import type { ChatModel } from '../../core/chat/chat-model.ts';
import type { ChatPartBatch, ChatStreamPart } from '../../core/chat/chat-stream-part.ts';
import type { ChatRequest, ChatResult, ChatUsage, FinishReason, FunctionTool, ToolCall } from '../../core/chat/chat-types.ts';
import { assertTextOnly } from '../../core/chat/text-only.ts';
import { ThinkTagSplitter } from '../../core/chat/think-tag-splitter.ts';
import { invalidField } from '../../core/errors/api-error.ts';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import type { LlamaEngine, LoadedModel } from './llama-engine.ts';
import { checkPromptFits, renderPrompt, type RenderedPrompt } from './rendered-prompt.ts';
import { generateTokens, type GenerationEnd, type GenerationEvent } from './token-generation.ts';
import { checkToolSchemas, readToolCall } from './tool-call-reader.ts';

/** llama.cpp's own defaults, for a request that leaves sampling to the engine. */
const defaultTemperature = 0.8;
const defaultTopP = 0.95;
/** Samples of a tool call before a call that fails its schema is reported as an engine error. */
const toolCallAttempts = 3;

/**
 * What the answer must be. With tools, a user's turn is always answered with a call of one of
 * them: a grammar holds the output to `{"name": <declared tool>, "arguments": …}` and the
 * arguments are checked against that tool's schema. After tool results the model answers in text.
 * The model does not choose between text and a call by itself (a random-weight test model cannot
 * choose sensibly); the price is that a real model cannot answer a user turn with plain text while
 * tools are offered.
 */
type OutputMode = 'text' | 'json' | 'tool-call';

const finishReasons: Record<GenerationEnd, FinishReason> = {
  'end-token': 'stop',
  'stop-word': 'stop',
  'max-tokens': 'length',
  'context-full': 'model_context_window_exceeded',
};

/** Chat on a GGUF model in this process, through node-llama-cpp. */
export class LlamaCppChatModel implements ChatModel {
  readonly #engine: LlamaEngine;

  constructor(engine: LlamaEngine) {
    this.#engine = engine;
  }

  generate(request: ChatRequest): Promise<ChatResult> {
    return collectChatStream(this.stream(request));
  }

  /** One batch per part: the engine makes one token at a time, each costing far more than the wait that hands it on. */
  async *stream(request: ChatRequest): AsyncGenerator<ChatPartBatch> {
    for await (const part of this.#parts(request)) yield [part];
  }

  async *#parts(request: ChatRequest): AsyncGenerator<ChatStreamPart> {
    const { modelName } = this.#engine.settings;
    assertTextOnly(request.messages, modelName);
    const mode: OutputMode =
      request.tools.length > 0 && request.messages.at(-1)?.role === 'user' ? 'tool-call' : request.responseFormat === 'json_object' ? 'json' : 'text';
    if (mode === 'tool-call') checkToolSchemas(request.tools);
    const loaded = await this.#engine.load();
    const prompt = renderPrompt(loaded, request.messages, request.tools, request.thinking.enabled);
    checkPromptFits(prompt, loaded, this.#engine.settings.modelName);
    const grammar = await this.#grammar(loaded, mode, request.tools);
    const sequence = await loaded.sequences.acquire(request.signal);
    try {
      const temperature = request.greedy ? 0 : (request.temperature ?? defaultTemperature);
      const generate = (attempt: number): AsyncIterable<GenerationEvent> =>
        generateTokens({
          model: loaded.model,
          sequence,
          prompt: prompt.tokens,
          maxTokens: request.maxTokens ?? request.maxTokensLimit,
          temperature,
          topP: request.greedy ? undefined : (request.topP ?? defaultTopP),
          seed: request.seed === undefined ? undefined : request.seed + attempt,
          grammar,
          // Structured output ends where its grammar says (node-llama-cpp's JSON grammars end
          // with blank lines); a client's stop word inside JSON would only break it.
          stopWords: grammar === undefined ? [...request.stop, ...prompt.turnEndTexts] : grammarEndTexts(grammar),
          visibleSpecialTokens: loaded.thinkTagTokens,
          signal: request.signal,
        });
      // A sampled call that fails its schema is sampled again; a greedy one would only repeat.
      if (mode === 'tool-call') yield* this.#toolCallParts(generate, temperature > 0 ? toolCallAttempts : 1, prompt, request.tools);
      else if (mode === 'json') yield* this.#jsonParts(generate(0), prompt);
      else yield* textParts(generate(0), prompt);
    } finally {
      loaded.sequences.release(sequence);
    }
  }

  async #grammar(loaded: LoadedModel, mode: OutputMode, tools: readonly FunctionTool[]): Promise<LlamaGrammar | undefined> {
    if (mode === 'text') return undefined;
    if (mode === 'json') return loaded.grammars.jsonObject();
    try {
      return await loaded.grammars.toolCall(tools);
    } catch (error) {
      // The caller's tools are at fault, not the engine.
      throw invalidField('tools', `the function parameters cannot be turned into a grammar (${(error as Error).message})`);
    }
  }

  /** JSON is sent as it is generated and checked when complete: a grammar should make it valid, and invalid JSON is never a success. */
  async *#jsonParts(events: AsyncIterable<GenerationEvent>, prompt: RenderedPrompt): AsyncGenerator<ChatStreamPart> {
    let content = '';
    for await (const event of events) {
      if (event.type === 'text') {
        content += event.text;
        yield { type: 'text', text: event.text };
        continue;
      }
      if (finishReasons[event.end] === 'stop' && !isJsonObject(content)) {
        throw new EngineFailure(
          'bad-answer',
          this.#engine.settings.modelName,
          `The engine for model '${this.#engine.settings.modelName}' produced output that is not a JSON object despite its grammar; please try again.`,
        );
      }
      yield finish(finishReasons[event.end], prompt, event);
    }
  }

  /**
   * A call is sent only once it is complete and checked, so a call that fails its schema can be
   * sampled again unseen; one cut off by the token budget or the context is dropped. Usage counts
   * every token generated, the discarded attempts' too.
   */
  async *#toolCallParts(
    generate: (attempt: number) => AsyncIterable<GenerationEvent>,
    attempts: number,
    prompt: RenderedPrompt,
    tools: readonly FunctionTool[],
  ): AsyncGenerator<ChatStreamPart> {
    let completionTokens = 0;
    let cachedTokens: number | undefined;
    for (let attempt = 0; ; attempt += 1) {
      let output = '';
      let end: GenerationEnd = 'end-token';
      for await (const event of generate(attempt)) {
        if (event.type === 'text') {
          output += event.text;
        } else {
          end = event.end;
          completionTokens += event.completionTokens;
          cachedTokens ??= event.cachedTokens;
        }
      }
      const usage = { completionTokens, cachedTokens: cachedTokens ?? 0 };
      if (finishReasons[end] !== 'stop') {
        yield finish(finishReasons[end], prompt, usage);
        return;
      }
      let call: ToolCall;
      try {
        call = readToolCall(output.trim(), tools, this.#engine.settings.modelName);
      } catch (error) {
        if (attempt + 1 < attempts) continue;
        throw error;
      }
      yield { type: 'tool-call-start', index: 0, id: call.id, name: call.name };
      yield { type: 'tool-call-delta', index: 0, argumentsDelta: call.arguments };
      yield finish('tool_calls', prompt, usage);
      return;
    }
  }
}

/**
 * Free text; a `<think>` block that opens the answer (a reasoning model) becomes reasoning, as
 * llama-server's `--reasoning-format deepseek` splits it. A prompt that ends inside an open think
 * block (the template's generation prompt with thinking on) makes the answer start as reasoning.
 */
async function* textParts(events: AsyncIterable<GenerationEvent>, prompt: RenderedPrompt): AsyncGenerator<ChatStreamPart> {
  const splitter = new ThinkTagSplitter();
  // The prompt's own opening tag, fed first: the model writes its reasoning and then `</think>`.
  if (prompt.reasoningOpen) splitter.push('<think>');
  for await (const event of events) {
    const pieces = event.type === 'text' ? splitter.push(event.text) : splitter.flush();
    for (const piece of pieces) yield { type: piece.type, text: piece.text };
    if (event.type === 'end') yield finish(finishReasons[event.end], prompt, event);
  }
}

function finish(reason: FinishReason, prompt: RenderedPrompt, counts: { readonly completionTokens: number; readonly cachedTokens: number }): ChatStreamPart {
  const usage: ChatUsage = { promptTokens: prompt.tokens.length, completionTokens: counts.completionTokens, cachedTokens: counts.cachedTokens };
  return { type: 'finish', reason, usage };
}

function grammarEndTexts(grammar: LlamaGrammar): string[] {
  return grammar.stopGenerationTriggers.flatMap((trigger) => {
    const values: readonly unknown[] = typeof trigger === 'string' ? [trigger] : LlamaText.isLlamaText(trigger) ? trigger.values : trigger;
    return values.length > 0 && values.every((value) => typeof value === 'string') ? [values.join('')] : [];
  });
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}
