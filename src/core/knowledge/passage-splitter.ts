/** Passage size when the upload names none (`sentence_size`), in characters. */
export const defaultSentenceSize = 300;
/** The sizes an upload may ask for: smaller passages carry too little to answer from, larger ones flood the prompt. */
export const minSentenceSize = 20;
export const maxSentenceSize = 2000;

/** A sentence's closing punctuation with the closing quotes or brackets after it, then spaces (none needed after CJK punctuation). */
const sentenceEnd = /[.!?;…]+["'”’)\]」』]*\s+|[。！？；]+["'”’)\]」』]*\s*/gu;

/**
 * A document's text cut into passages of about `size` characters: whole sentences packed
 * together, a new passage started where the next sentence would pass the size. Lines and
 * paragraphs are kept apart as they were written; a sentence longer than `size` is cut at the
 * last space before the size (anywhere, in text without spaces).
 */
export function splitPassages(text: string, size: number): string[] {
  const passages: string[] = [];
  // The passage being filled, as pieces and the separators before them (joined once, when full).
  let parts: string[] = [];
  let length = 0;
  const flush = () => {
    if (parts.length > 0) passages.push(parts.join(''));
    parts = [];
    length = 0;
  };
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    const trimmed = line.replace(/[ \t\f\v]{2,}|[\t\f\v]/g, ' ').trim();
    if (trimmed === '') continue;
    let separator = '\n';
    for (const sentence of sentencesOf(trimmed)) {
      for (const piece of cutLong(sentence, size)) {
        if (length > 0 && length + separator.length + piece.length > size) flush();
        if (length > 0) parts.push(separator);
        parts.push(piece);
        length += (length > 0 ? separator.length : 0) + piece.length;
        separator = ' ';
      }
    }
  }
  flush();
  return passages;
}

/** The line's sentences, in one pass over it. */
function* sentencesOf(line: string): Generator<string> {
  let start = 0;
  for (const end of line.matchAll(sentenceEnd)) {
    const stop = end.index + end[0].length;
    yield line.slice(start, stop).trim();
    start = stop;
  }
  if (start < line.length) yield line.slice(start).trim();
}

/** The sentence in pieces of at most `size` characters, cut at spaces where it has them. */
function cutLong(sentence: string, size: number): string[] {
  if (sentence.length <= size) return sentence === '' ? [] : [sentence];
  const pieces: string[] = [];
  let start = 0;
  while (sentence.length - start > size) {
    const space = sentence.lastIndexOf(' ', start + size);
    const cut = space > start + size / 2 ? space : start + size;
    pieces.push(sentence.slice(start, cut).trim());
    start = cut;
  }
  const rest = sentence.slice(start).trim();
  if (rest !== '') pieces.push(rest);
  return pieces;
}
