/** Characters written without spaces between words: CJK scripts, their punctuation and full-width forms. */
const unspaced = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u;
/** A word broken at the line end: a letter, then a hyphen (ASCII, Unicode hyphen or soft hyphen). */
const brokenWord = /\p{L}[-\u2010\u00ad]$/u;

/**
 * The text of consecutive lines (or same-row fragments) as one run of text: a space between
 * lines, none between two CJK characters (CJK writes no spaces), and a word hyphenated at a
 * line end joined again when the next line goes on in lower case.
 */
export function joinLineTexts(texts: readonly string[]): string {
  let joined = '';
  for (const raw of texts) {
    const text = raw.trim();
    if (text === '') continue;
    if (joined === '') {
      joined = text;
      continue;
    }
    const last = [...joined].at(-1) ?? '';
    const first = [...text][0] ?? '';
    if (unspaced.test(last) && unspaced.test(first)) joined += text;
    else if (brokenWord.test(joined) && /^\p{Ll}/u.test(text)) joined = joined.slice(0, -1) + text;
    else joined += ` ${text}`;
  }
  return joined;
}

/** Whether the text holds CJK characters. */
export function hasUnspacedScript(text: string): boolean {
  return unspaced.test(text);
}
