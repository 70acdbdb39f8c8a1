import type { LlamaModel, Token } from 'node-llama-cpp';

/** The longest UTF-8 sequence: a character never spans more byte tokens than this. */
const maxBytesPerCharacter = 4;
/** Tokens before the new ones that the detokenizer sees, so spaces between words come out right. */
const contextTokens = 8;

/**
 * Turns generated tokens into text as they come. A character can be cut across byte-fallback
 * tokens; its first tokens decode to U+FFFD, so they are held until the character is whole (or
 * until it cannot be: a model can sample bytes that are no UTF-8 at all).
 */
export class TokenTextDecoder {
  readonly #model: LlamaModel;
  readonly #visibleSpecialTokens: ReadonlySet<Token>;
  #pending: Token[] = [];
  #decoded: Token[] = [];

  /**
   * Special tokens decode to nothing, except `visibleSpecialTokens`: markers the answer is read by
   * (a reasoning model's `<think>` and `</think>`), which come out as their text.
   */
  constructor(model: LlamaModel, visibleSpecialTokens: ReadonlySet<Token> = new Set()) {
    this.#model = model;
    this.#visibleSpecialTokens = visibleSpecialTokens;
  }

  push(token: Token): string {
    if (this.#visibleSpecialTokens.has(token)) {
      const marker = this.#model.detokenize([token], true);
      return this.flush() + marker;
    }
    this.#pending.push(token);
    const text = this.#decode();
    if (text.endsWith('\uFFFD') && this.#pending.length < maxBytesPerCharacter) return '';
    this.#accept();
    return text;
  }

  /** Text of tokens still held (an unfinished character), for an answer that ends now. */
  flush(): string {
    if (this.#pending.length === 0) return '';
    const text = this.#decode();
    this.#accept();
    return text;
  }

  #decode(): string {
    return this.#model.detokenize(this.#pending, false, this.#decoded);
  }

  #accept(): void {
    this.#decoded = [...this.#decoded, ...this.#pending].slice(-contextTokens);
    this.#pending = [];
  }
}
