import { hasCjk } from './cjk-segmentation.ts';

/**
 * The content of a result: about `length` characters of the document text around its best
 * match. The engine (FTS5 snippet(), ts_headline) picks the best short fragment; this widens it
 * to the size asked (a short summary or a long passage) without cutting words, so both dialects
 * give the same kind of text. Whitespace is collapsed: a result is read as one passage.
 */
export function snippetWindow(content: string, fragment: string, needles: readonly string[], length: number): string {
  const text = collapse(content);
  if (text.length <= length) return text;
  const center = locate(text, collapse(fragment), needles);
  let start = Math.max(0, Math.min(center - Math.floor(length / 2), text.length - length));
  let end = Math.min(text.length, start + length);
  // Move inward to a word boundary, by a tenth of the window at most (CJK text is cut anywhere).
  const slack = Math.min(40, Math.floor(length / 10));
  if (start > 0 && !cutsBetweenWords(text, start)) start = wordStartAfter(text, start, slack);
  if (end < text.length && !cutsBetweenWords(text, end)) end = wordEndBefore(text, end, start, slack);
  return text.slice(start, end).trim();
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The middle of the fragment in the text; else the first place a query term is written (the
 * fragment of a CJK text comes from its segmented copy, so it is not found as it is); else the start.
 */
function locate(text: string, fragment: string, needles: readonly string[]): number {
  if (fragment !== '') {
    const at = text.indexOf(fragment);
    if (at >= 0) return at + Math.floor(fragment.length / 2);
  }
  const lower = text.toLowerCase();
  let first = -1;
  for (const needle of needles) {
    const at = lower.indexOf(needle);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  return first < 0 ? 0 : first;
}

/** Whether cutting before `index` splits no word: at a space, or next to a CJK character. */
function cutsBetweenWords(text: string, index: number): boolean {
  const before = text[index - 1] ?? ' ';
  const after = text[index] ?? ' ';
  return before === ' ' || after === ' ' || hasCjk(before) || hasCjk(after);
}

function wordStartAfter(text: string, index: number, slack: number): number {
  const space = text.indexOf(' ', index);
  return space < 0 || space - index > slack ? index : space + 1;
}

function wordEndBefore(text: string, index: number, floor: number, slack: number): number {
  const space = text.lastIndexOf(' ', index);
  return space <= floor || index - space > slack ? index : space;
}
