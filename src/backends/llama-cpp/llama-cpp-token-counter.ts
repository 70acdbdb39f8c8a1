import type { TokenCounter } from '../../core/chat/chat-model.ts';
import { assertTextOnly } from '../../core/chat/text-only.ts';
import type { LlamaEngine } from './llama-engine.ts';
import { renderPrompt } from './rendered-prompt.ts';

/** Counts a prompt exactly as the chat model renders it, so the count equals a chat answer's prompt_tokens. */
export class LlamaCppTokenCounter implements TokenCounter {
  readonly #engine: LlamaEngine;

  constructor(engine: LlamaEngine) {
    this.#engine = engine;
  }

  async countPromptTokens(request: Parameters<TokenCounter['countPromptTokens']>[0]): Promise<number> {
    assertTextOnly(request.messages, this.#engine.settings.modelName);
    const loaded = await this.#engine.load();
    request.signal.throwIfAborted();
    return renderPrompt(loaded, request.messages, request.tools, request.thinking?.enabled).tokens.length;
  }
}
