import type { TokenCounter } from '../../core/chat/chat-model.ts';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import { postJson, type EngineConnection } from '../engine-http/engine-request.ts';
import { toOpenAiMessages, toOpenAiTools } from '../engine-http/openai-chat-body.ts';
import { asCount, pathOf } from '../engine-http/wire-reading.ts';

/** Token counts from the upstream platform's own `POST /tokenizer`. */
export class ZaiTokenizer implements TokenCounter {
  readonly #engine: EngineConnection;
  readonly #url: string;
  readonly #upstreamModel: string;

  constructor(engine: EngineConnection, baseUrl: string, upstreamModel: string) {
    this.#engine = engine;
    this.#url = `${baseUrl}/tokenizer`;
    this.#upstreamModel = upstreamModel;
  }

  async countPromptTokens(request: Parameters<TokenCounter['countPromptTokens']>[0]): Promise<number> {
    const body: Record<string, unknown> = { model: this.#upstreamModel, messages: toOpenAiMessages(request.messages, true) };
    if (request.tools.length > 0) body['tools'] = toOpenAiTools(request.tools);
    const answer = await postJson(this.#engine, { url: this.#url, body, signal: request.signal });
    const count = pathOf(answer, 'usage', 'prompt_tokens');
    if (typeof count !== 'number') {
      throw new EngineFailure(
        'bad-answer',
        this.#engine.modelName,
        `The upstream platform answered /tokenizer for model '${this.#engine.modelName}' without usage.prompt_tokens.`,
      );
    }
    const counted = asCount(count);
    // A rendered chat always has tokens (its role markers at least): 0 is the upstream failing, never a count.
    if (counted === 0)
      throw new EngineFailure(
        'bad-answer',
        this.#engine.modelName,
        `The upstream platform counted 0 tokens for a non-empty prompt of model '${this.#engine.modelName}' at /tokenizer.`,
      );
    // The upstream counts images and videos into prompt_tokens and reports them apart.
    request.onMediaCounted?.({
      image: countOrUndefined(pathOf(answer, 'usage', 'image_tokens')),
      video: countOrUndefined(pathOf(answer, 'usage', 'video_tokens')),
    });
    return counted;
  }
}

function countOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' ? asCount(value) : undefined;
}
