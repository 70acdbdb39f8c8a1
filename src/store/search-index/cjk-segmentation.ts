/**
 * Chinese and Japanese are written without spaces between words, and neither full-text engine
 * splits them (FTS5 unicode61 and PostgreSQL's parser make one token of a whole run). The index
 * therefore sees such text with a space around each CJK character, and a query's CJK run is
 * searched as a phrase of its characters: a word matches where its characters stand together.
 * Hangul is left alone: Korean separates words with spaces.
 */
const cjkCharacter = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const cjkCharacters = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;
const cjkOrOther = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;

export function hasCjk(text: string): boolean {
  return cjkCharacter.test(text);
}

/** The text as the tokenizers should see it, or null when it has no CJK character (index it as it is). */
export function segmentCjk(text: string): string | null {
  return hasCjk(text) ? text.replace(cjkCharacters, ' $& ') : null;
}

/** A query word split into its CJK characters (each alone) and the runs of other characters between them. */
export function splitCjk(word: string): string[] {
  return word.match(cjkOrOther) ?? [];
}

/** Whether a piece is a single CJK character. */
export function isCjkCharacter(piece: string): boolean {
  return [...piece].length === 1 && cjkCharacter.test(piece);
}
