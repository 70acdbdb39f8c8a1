import { estimatedBytesPerToken, estimatePromptTokens } from '../usage/token-estimate.ts';
import type { TokenCounter } from './chat-model.ts';
import type { ChatRequest, ChatUsage } from './chat-types.ts';

/**
 * What a streamed answer has delivered to its client so far, so that an answer cut by a broken
 * engine connection is billed for what went out instead of nothing: the engine that would have
 * reported the usage is gone.
 */
export class DeliveredOutput {
  #pieces = 0;
  #bytes = 0;

  /** One piece of output sent to the client: text, reasoning, a tool call's name or argument fragment. */
  add(text: string): void {
    if (text === '') return;
    this.#pieces += 1;
    this.#bytes += Buffer.byteLength(text, 'utf8');
  }

  /** Whether any output went out. */
  get any(): boolean {
    return this.#pieces > 0;
  }

  /**
   * The completion tokens of what was delivered, estimated: engines stream about one token per
   * event, so each piece counts at least one; text that came in larger pieces counts 4 UTF-8
   * bytes per token (token-estimate.ts).
   */
  get estimatedTokens(): number {
    return Math.max(this.#pieces, Math.ceil(this.#bytes / estimatedBytesPerToken));
  }

  /**
   * The usage of an answer cut now. The engine's own last report wins where it has one (prompt and
   * cached tokens; completion tokens at least one per piece delivered, which may have come after
   * that report); what it never reported is counted without it: the prompt by `countPrompt`, the
   * completion from the delivered output.
   */
  async usageWhenCut(engineUsage: ChatUsage | undefined, countPrompt: () => Promise<number>): Promise<ChatUsage> {
    const reportedPrompt = engineUsage?.promptTokens ?? 0;
    const reportedCompletion = engineUsage?.completionTokens ?? 0;
    return {
      promptTokens: reportedPrompt > 0 ? reportedPrompt : await countPrompt(),
      completionTokens: reportedCompletion > 0 ? Math.max(reportedCompletion, this.#pieces) : this.estimatedTokens,
      cachedTokens: engineUsage?.cachedTokens ?? 0,
    };
  }
}

/**
 * The prompt tokens of a chat call when its engine cannot be asked (it died mid-answer): the
 * model's own tokenizer files when the platform has them in process (`tokenizerPath`), else the
 * estimate of token-estimate.ts. A tokenizer that fails falls back to the estimate as well: this
 * count is bookkeeping after the answer, never a reason to fail it.
 */
export async function promptTokensWithoutEngine(
  request: Pick<ChatRequest, 'messages' | 'tools' | 'thinking' | 'signal'>,
  localTokenizer: (() => TokenCounter) | undefined,
): Promise<number> {
  if (localTokenizer !== undefined) {
    try {
      return await localTokenizer().countPromptTokens(request);
    } catch {
      // The estimate below.
    }
  }
  return estimatePromptTokens(request);
}
