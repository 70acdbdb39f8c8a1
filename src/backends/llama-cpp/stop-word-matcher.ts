/**
 * Finds the first stop word in text that arrives in pieces. Text that could still turn into a stop
 * word (a suffix that is a stop word's beginning) is held back until the next piece decides, so no
 * part of a stop word ever reaches the client, even when it is split across tokens.
 */
export class StopWordMatcher {
  readonly #stopWords: readonly string[];
  #held = '';

  constructor(stopWords: readonly string[]) {
    this.#stopWords = stopWords.filter((word) => word !== '');
  }

  /** The text that is safe to send now, and whether a stop word ended the answer (its text is not sent). */
  push(piece: string): { readonly text: string; readonly stopped: boolean } {
    const text = this.#held + piece;
    let stopAt = -1;
    for (const word of this.#stopWords) {
      const index = text.indexOf(word);
      if (index >= 0 && (stopAt < 0 || index < stopAt)) stopAt = index;
    }
    if (stopAt >= 0) {
      this.#held = '';
      return { text: text.slice(0, stopAt), stopped: true };
    }
    const kept = this.#longestPendingSuffix(text);
    this.#held = text.slice(text.length - kept);
    return { text: text.slice(0, text.length - kept), stopped: false };
  }

  /** What was held back, for an answer that ended for another reason. */
  flush(): string {
    const held = this.#held;
    this.#held = '';
    return held;
  }

  #longestPendingSuffix(text: string): number {
    let longest = 0;
    for (const word of this.#stopWords) {
      for (let length = Math.min(word.length - 1, text.length); length > longest; length -= 1) {
        if (text.endsWith(word.slice(0, length))) {
          longest = length;
          break;
        }
      }
    }
    return longest;
  }
}
