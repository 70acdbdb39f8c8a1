import type { TokenCounter } from '../../core/chat/chat-model.ts';
import type { ChatRequest, ContentPart } from '../../core/chat/chat-types.ts';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import { engineErrorMessage } from '../engine-http/engine-http-error.ts';
import { postJson, type EngineConnection } from '../engine-http/engine-request.ts';
import { LlamaServerTokenizer, zeroTokens } from './llama-server-tokenizer.ts';
import { buildOpenAiChatBody, type OpenAiBodyOptions } from '../engine-http/openai-chat-body.ts';
import { asRecord } from '../engine-http/wire-reading.ts';
import type { OpenAiCompatibleSettings } from './openai-compatible-settings.ts';

/** The server behind an openai-compatible model, as far as token counting cares. */
export type EngineKind = NonNullable<OpenAiCompatibleSettings['engine']>;

type CountRequest = Parameters<TokenCounter['countPromptTokens']>[0];

/**
 * Counts prompt tokens with the engine's own tokenizer and chat template, so that the count equals
 * the chat call's `prompt_tokens` for the same messages, tools and thinking switch:
 * - vLLM: `POST /tokenize` in its chat form (messages, tools, chat_template_kwargs), `count`;
 * - llama.cpp server: see LlamaServerTokenizer (its `/tokenize` ignores `messages`);
 * - SGLang: its `/tokenize` takes text only, so the model's tokenizer files (tokenizerPath) count.
 * The kind is the model's `engine` option; left out, the first answer of `/tokenize` to the chat
 * form tells: vLLM counts, llama.cpp's server answers no tokens at all (it read no `content`).
 * What was found is kept for the engine's lifetime.
 */
export class OpenAiCompatibleTokenizer implements TokenCounter {
  readonly #engine: EngineConnection;
  readonly #origin: string;
  readonly #options: OpenAiBodyOptions;
  readonly #llamaServer: LlamaServerTokenizer;
  #kind: EngineKind | undefined;

  /** `baseUrl` is the engine's address with `/v1`; vLLM serves /tokenize beside it, at the root. */
  constructor(engine: EngineConnection, baseUrl: string, options: OpenAiBodyOptions, kind: EngineKind | undefined) {
    this.#engine = engine;
    this.#origin = baseUrl.replace(/\/v1$/, '');
    this.#options = options;
    this.#kind = kind;
    this.#llamaServer = new LlamaServerTokenizer(engine, baseUrl, this.#origin);
  }

  async countPromptTokens(request: CountRequest): Promise<number> {
    // The chat call's own body: the same messages, tools and thinking switch reach the template.
    const chatBody = this.#chatBody(request);
    switch (this.#kind) {
      case 'llama.cpp':
        return this.#llamaServer.count(chatBody, request.signal, request.onMediaCounted);
      case 'sglang':
        throw new EngineFailure(
          'misconfigured',
          this.#engine.modelName,
          `Model '${this.#engine.modelName}' runs on SGLang, whose /tokenize counts text, not chats; configure tokenizerPath (the model's tokenizer.json, with its chat template) for this model to count tokens.`,
        );
      case 'vllm':
        return this.#countOnVllm(this.#withoutVisualMedia(request, chatBody), request.signal, true);
      case undefined: {
        const count = await this.#countOnVllm(this.#withoutVisualMedia(request, chatBody), request.signal, false);
        if (count !== undefined) {
          this.#kind = 'vllm';
          return count;
        }
        this.#kind = 'llama.cpp';
        return this.#llamaServer.count(chatBody, request.signal, request.onMediaCounted);
      }
    }
  }

  #chatBody(request: CountRequest): Record<string, unknown> {
    const chatRequest: ChatRequest = {
      model: this.#options.modelName,
      messages: request.messages,
      tools: request.tools,
      temperature: undefined,
      topP: undefined,
      greedy: false,
      maxTokens: undefined,
      maxTokensLimit: undefined,
      stop: [],
      responseFormat: 'text',
      thinking: request.thinking ?? { enabled: true, effort: undefined },
      seed: undefined,
      signal: request.signal,
    };
    // Without a thinking switch the engine's default is counted, as a chat call without one would be.
    const body = buildOpenAiChatBody(chatRequest, request.thinking === undefined ? { ...this.#options, thinkingParam: 'none' } : this.#options, false);
    delete body['stream'];
    return body;
  }

  /**
   * The chat body without image and video parts. vLLM's /tokenize expands their placeholders in
   * some versions and not in others, and does not say which; so it counts the text, and the caller
   * adds the media by the vision model's rule, whatever the version.
   */
  #withoutVisualMedia(request: CountRequest, chatBody: Record<string, unknown>): Record<string, unknown> {
    const visual = (part: ContentPart) => part.type === 'image_url' || part.type === 'video_url';
    if (!request.messages.some((message) => Array.isArray(message.content) && message.content.some(visual))) return chatBody;
    const messages = request.messages.map((message) =>
      Array.isArray(message.content) ? { ...message, content: message.content.filter((part: ContentPart) => !visual(part)) } : message,
    );
    return this.#chatBody({ ...request, messages });
  }

  /**
   * vLLM's chat `/tokenize`. When the kind is only being found out (`known` false), an answer
   * without tokens is llama.cpp's server (it tokenized an absent `content`): undefined.
   */
  async #countOnVllm(chatBody: Record<string, unknown>, signal: CountRequest['signal'], known: true): Promise<number>;
  async #countOnVllm(chatBody: Record<string, unknown>, signal: CountRequest['signal'], known: false): Promise<number | undefined>;
  async #countOnVllm(chatBody: Record<string, unknown>, signal: CountRequest['signal'], known: boolean): Promise<number | undefined> {
    const body: Record<string, unknown> = { model: chatBody['model'], messages: chatBody['messages'], add_generation_prompt: true };
    if (chatBody['tools'] !== undefined) body['tools'] = chatBody['tools'];
    if (chatBody['chat_template_kwargs'] !== undefined) body['chat_template_kwargs'] = chatBody['chat_template_kwargs'];
    const answer = asRecord(
      await postJson(this.#engine, {
        url: `${this.#origin}/tokenize`,
        body,
        signal,
        httpError: (status, text) => {
          if (status === 404 || status === 405) {
            return new EngineFailure(
              'misconfigured',
              this.#engine.modelName,
              `The engine for model '${this.#engine.modelName}' has no /tokenize endpoint (HTTP ${status}); configure tokenizerPath for this model to count tokens.`,
              { engineStatus: status },
            );
          }
          // Only the first count finds the kind out: a refusal of the chat form there is the engine's, not the caller's.
          if (!known && (status === 400 || status === 422)) {
            return new EngineFailure(
              'misconfigured',
              this.#engine.modelName,
              `The engine for model '${this.#engine.modelName}' refused the chat form of /tokenize (HTTP ${status}: ${engineErrorMessage(text)}): it is neither vLLM nor llama.cpp's server (SGLang's /tokenize counts text only); set 'engine' in the model's config, or configure tokenizerPath.`,
            );
          }
          return this.#engine.httpError(status, text);
        },
      }),
    );
    const count = answer?.['count'];
    const tokens = answer?.['tokens'];
    const counted = typeof count === 'number' && Number.isInteger(count) && count >= 0 ? count : Array.isArray(tokens) ? tokens.length : undefined;
    if (counted === undefined) {
      throw new EngineFailure(
        'bad-answer',
        this.#engine.modelName,
        `The engine for model '${this.#engine.modelName}' answered /tokenize without a count or tokens.`,
      );
    }
    if (counted > 0) return counted;
    if (!known) return undefined;
    throw zeroTokens(this.#engine.modelName, '/tokenize');
  }
}
