/** One piece of an answer's content once `<think>` blocks are taken out. */
export interface SplitPiece {
  readonly type: 'reasoning' | 'text';
  readonly text: string;
}

const openTag = '<think>';
const closeTag = '</think>';

type SplitterState = 'start' | 'reasoning' | 'after-reasoning' | 'text';

/**
 * Takes a `<think>…</think>` block at the start of an answer out of its content, for engines that
 * leave the model's reasoning inside `content` (an inference server started without a reasoning
 * parser). Works on streamed fragments: a tag cut across fragments is held back until it is
 * complete, so no part of a tag ever reaches the client. Only a block that opens the answer counts;
 * a tag later in the text is the model talking about tags and stays text.
 */
export class ThinkTagSplitter {
  #state: SplitterState = 'start';
  /** Text that may be the beginning of a tag, waiting for the next fragment. */
  #held = '';

  push(fragment: string): SplitPiece[] {
    const pieces: SplitPiece[] = [];
    let rest = this.#held + fragment;
    this.#held = '';
    while (rest !== '') {
      switch (this.#state) {
        case 'start': {
          const trimmed = rest.trimStart();
          if (trimmed.startsWith(openTag)) {
            this.#state = 'reasoning';
            rest = trimmed.slice(openTag.length);
          } else if (openTag.startsWith(trimmed)) {
            // Only whitespace or a partial "<think" so far: wait for more.
            this.#held = rest;
            return pieces;
          } else {
            this.#state = 'text';
          }
          break;
        }
        case 'reasoning': {
          const end = rest.indexOf(closeTag);
          if (end >= 0) {
            addPiece(pieces, 'reasoning', rest.slice(0, end));
            rest = rest.slice(end + closeTag.length);
            this.#state = 'after-reasoning';
          } else {
            const kept = partialTagLength(rest, closeTag);
            addPiece(pieces, 'reasoning', rest.slice(0, rest.length - kept));
            this.#held = rest.slice(rest.length - kept);
            return pieces;
          }
          break;
        }
        case 'after-reasoning':
          // The blank lines models put between "</think>" and the answer are not part of it.
          rest = rest.trimStart();
          if (rest !== '') this.#state = 'text';
          break;
        case 'text':
          addPiece(pieces, 'text', rest);
          return pieces;
      }
    }
    return pieces;
  }

  /** What is still held at the end of the answer: an unfinished tag is plain text, unfinished reasoning stays reasoning. */
  flush(): SplitPiece[] {
    const pieces: SplitPiece[] = [];
    const held = this.#held;
    this.#held = '';
    if (this.#state === 'start') addPiece(pieces, 'text', held);
    if (this.#state === 'reasoning') addPiece(pieces, 'reasoning', held);
    return pieces;
  }
}

/** The same split for a whole, non-streamed content string. */
export function splitThinkTags(content: string): { reasoning: string; content: string } {
  const splitter = new ThinkTagSplitter();
  let reasoning = '';
  let text = '';
  for (const piece of [...splitter.push(content), ...splitter.flush()]) {
    if (piece.type === 'reasoning') reasoning += piece.text;
    else text += piece.text;
  }
  return { reasoning, content: text };
}

function addPiece(pieces: SplitPiece[], type: SplitPiece['type'], text: string): void {
  if (text !== '') pieces.push({ type, text });
}

/** Length of the longest end of `text` that is the beginning of `tag`. */
function partialTagLength(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length -= 1) {
    if (text.endsWith(tag.slice(0, length))) return length;
  }
  return 0;
}
