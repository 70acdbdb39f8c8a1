import { EngineFailure } from '../../core/errors/engine-failure.ts';
import type { EngineMediaCount } from '../../core/chat/chat-model.ts';
import { postJson, type EngineConnection } from '../engine-http/engine-request.ts';
import { asArray, asRecord } from '../engine-http/wire-reading.ts';

/** Which of llama.cpp server's two ways of counting a chat this server has. */
type CountRoute = 'input-tokens' | 'apply-template';

/**
 * Counts a chat's prompt tokens on llama.cpp's `llama-server` exactly as its chat endpoint does.
 * Its `/tokenize` reads only `content` (text): a chat must be rendered first. Newer servers do both
 * in one call, `POST /v1/chat/completions/input_tokens`, which takes the chat body itself and also
 * counts media as the multimodal projector does; older ones have `POST /apply-template` (the chat
 * body through the same template code as a chat call) and then `POST /tokenize` with the prompt,
 * special tokens added and parsed as the chat endpoint tokenizes its prompt
 * (`tokenize_input_prompts(…, add_special = true, parse_special = true)`).
 */
export class LlamaServerTokenizer {
  readonly #engine: EngineConnection;
  readonly #baseUrl: string;
  readonly #origin: string;
  /** Found on the first count: a server without input_tokens answers it 404 once, never again. */
  #route: CountRoute = 'input-tokens';

  /** `baseUrl` ends with `/v1`; `/apply-template` and `/tokenize` sit at the server's root, `origin`. */
  constructor(engine: EngineConnection, baseUrl: string, origin: string) {
    this.#engine = engine;
    this.#baseUrl = baseUrl;
    this.#origin = origin;
  }

  /** `chatBody` is the body the chat call would send for these messages, tools and thinking switch. */
  async count(chatBody: Record<string, unknown>, signal: AbortSignal, onMediaCounted?: (counted: EngineMediaCount) => void): Promise<number> {
    if (this.#route === 'input-tokens') {
      const answer = await postJson(this.#engine, {
        url: `${this.#baseUrl}/chat/completions/input_tokens`,
        body: chatBody,
        signal,
        httpError: (status, text) => (status === 404 || status === 405 ? new RouteMissing(this.#engine.modelName) : this.#engine.httpError(status, text)),
      }).catch((error: unknown) => {
        if (error instanceof RouteMissing) return undefined;
        throw error;
      });
      if (answer !== undefined) {
        const count = this.#checked(asRecord(answer)?.['input_tokens'], '/v1/chat/completions/input_tokens', 'input_tokens');
        // input_tokens tokenizes media through the multimodal projector, as the chat call does: they are in the count, not apart.
        onMediaCounted?.({ image: undefined, video: undefined });
        return count;
      }
      this.#route = 'apply-template';
    }
    return this.#countRendered(chatBody, signal);
  }

  async #countRendered(chatBody: Record<string, unknown>, signal: AbortSignal): Promise<number> {
    if (hasMedia(chatBody)) {
      throw new EngineFailure(
        'misconfigured',
        this.#engine.modelName,
        `The llama.cpp server of model '${this.#engine.modelName}' has no /v1/chat/completions/input_tokens, and its /tokenize cannot count images or audio; update llama-server to count media.`,
      );
    }
    const missing = (path: string) => (status: number, text: string) =>
      status === 404 || status === 405
        ? new EngineFailure(
            'misconfigured',
            this.#engine.modelName,
            `The engine for model '${this.#engine.modelName}' has no ${path} endpoint (HTTP ${status}), so it is not a llama.cpp server; fix 'engine' in the model's config, or configure tokenizerPath.`,
            { engineStatus: status },
          )
        : this.#engine.httpError(status, text);
    const rendered = asRecord(
      await postJson(this.#engine, { url: `${this.#origin}/apply-template`, body: chatBody, signal, httpError: missing('/apply-template') }),
    );
    const prompt = rendered?.['prompt'];
    if (typeof prompt !== 'string' || prompt === '') {
      throw new EngineFailure(
        'bad-answer',
        this.#engine.modelName,
        `The llama.cpp server of model '${this.#engine.modelName}' answered /apply-template without a prompt.`,
      );
    }
    const tokenized = asRecord(
      await postJson(this.#engine, {
        url: `${this.#origin}/tokenize`,
        // `model` routes the call on a llama-server that serves several models (router mode); one model ignores it.
        body: { model: chatBody['model'], content: prompt, add_special: true, parse_special: true },
        signal,
        httpError: missing('/tokenize'),
      }),
    );
    const tokens = tokenized?.['tokens'];
    return this.#checked(Array.isArray(tokens) ? asArray(tokens).length : undefined, '/tokenize', 'tokens');
  }

  #checked(count: unknown, path: string, field: string): number {
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) {
      throw new EngineFailure(
        'bad-answer',
        this.#engine.modelName,
        `The llama.cpp server of model '${this.#engine.modelName}' answered ${path} without ${field}.`,
      );
    }
    if (count === 0) throw zeroTokens(this.#engine.modelName, path);
    return count;
  }
}

/** A rendered chat always has tokens (at least its role markers): none is the engine failing, never a count. */
export function zeroTokens(modelName: string, path: string): EngineFailure {
  return new EngineFailure(
    'bad-answer',
    modelName,
    `The engine for model '${modelName}' counted 0 tokens for a non-empty prompt at ${path}; it did not tokenize the chat.`,
  );
}

/** The mapped 404 of an endpoint this server lacks; never leaves this file. */
class RouteMissing extends EngineFailure {
  constructor(modelName: string) {
    super('misconfigured', modelName, 'The engine has no /v1/chat/completions/input_tokens.');
  }
}

function hasMedia(chatBody: Record<string, unknown>): boolean {
  return asArray(chatBody['messages']).some((message) => {
    const content = asRecord(message)?.['content'];
    return Array.isArray(content) && content.some((part) => asRecord(part)?.['type'] !== 'text');
  });
}
