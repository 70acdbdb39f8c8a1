import type { ChatRequest } from '../../core/chat/chat-types.ts';
import type { TokenCounter } from '../../core/chat/chat-model.ts';
import { assertTextOnly } from '../../core/chat/text-only.ts';
import { ApiError } from '../../core/errors/api-error.ts';
import { postJson, type EngineConnection } from './engine-request.ts';
import { toOpenAiMessages, toOpenAiTools, type OpenAiBodyOptions } from './openai-chat-body.ts';
import { asArray, asRecord } from './wire-reading.ts';

/**
 * Counts prompt tokens with the engine's own tokenizer and chat template: vLLM's (and SGLang's)
 * `POST /tokenize` in its chat form, which renders the messages and tools as a chat call would.
 * The answer's `count` is read, or the length of `tokens` (llama.cpp server answers only that).
 */
export class OpenAiCompatibleTokenizer implements TokenCounter {
  readonly #engine: EngineConnection;
  readonly #url: string;
  readonly #options: OpenAiBodyOptions;

  /** `origin` is the engine's address without `/v1`: vLLM serves /tokenize beside it. */
  constructor(engine: EngineConnection, origin: string, options: OpenAiBodyOptions) {
    this.#engine = engine;
    this.#url = `${origin}/tokenize`;
    this.#options = options;
  }

  async countPromptTokens(request: { readonly messages: ChatRequest['messages']; readonly tools: ChatRequest['tools']; readonly signal: AbortSignal }): Promise<number> {
    if (!this.#options.vision) assertTextOnly(request.messages, this.#options.modelName);
    const body: Record<string, unknown> = {
      model: this.#options.upstreamModel,
      messages: toOpenAiMessages(request.messages, this.#options.vision),
      add_generation_prompt: true,
    };
    if (request.tools.length > 0) body['tools'] = toOpenAiTools(request.tools);
    const answer = asRecord(
      await postJson(this.#engine, {
        url: this.#url,
        body,
        signal: request.signal,
        httpError: (status, text) =>
          status === 404 || status === 405
            ? new ApiError(
                '1221',
                `The engine for model '${this.#engine.modelName}' has no /tokenize endpoint (HTTP ${status}); configure tokenizerPath for this model to count tokens.`,
              )
            : this.#engine.httpError(status, text),
      }),
    );
    const count = answer?.['count'];
    if (typeof count === 'number' && Number.isInteger(count) && count >= 0) return count;
    const tokens = answer?.['tokens'];
    if (Array.isArray(tokens)) return asArray(tokens).length;
    throw new ApiError('500', `The engine for model '${this.#engine.modelName}' answered /tokenize without a count or tokens.`);
  }
}
