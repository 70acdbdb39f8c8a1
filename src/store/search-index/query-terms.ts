import { isCjkCharacter, splitCjk } from './cjk-segmentation.ts';

/**
 * A user's search text reduced to plain terms: words (runs of letters, digits and combining
 * marks) and phrases of such words. Everything else (FTS5 or tsquery operators, column filters,
 * `*`, `^`, `:`, parentheses, a stray quote) is a separator, so the text can never be read as
 * query syntax by either engine.
 */
export interface QueryTerms {
  /** Single words, lower case, each once. */
  readonly words: readonly string[];
  /** Phrases of two or more words, in order. */
  readonly phrases: readonly (readonly string[])[];
  /** The terms as the user wrote them (words, "quoted phrases", CJK words), for reports. */
  readonly described: readonly string[];
}

/** Bounds what one query may cost: a pasted page is not a search. */
const mostTerms = 32;
const longestWord = 64;

const wordPattern = /[\p{L}\p{N}\p{M}]+/gu;

/** Common English words: alone they match nearly every document, so they only count when nothing else is asked. */
const stopWords = new Set(
  (
    'a an and are as at be but by for from has have he her his how i in into is it its me my no not of on or our she so ' +
    'than that the their them then there these they this to was we were what when where which who why will with you your'
  ).split(' '),
);

/**
 * Double-quoted text is a phrase (an unpaired quote is a separator). A run of CJK characters
 * (written without spaces, so it may be a whole sentence) is searched as its overlapping pairs of
 * characters, each a two-character phrase: a document with every pair ranks first, one with some
 * of them after it, which finds the words of a sentence without a dictionary to cut it.
 */
export function parseQueryTerms(text: string): QueryTerms {
  const phrases: string[][] = [];
  const loose: string[] = [];
  const described: string[] = [];
  const parts = text.normalize('NFKC').split('"');
  parts.forEach((part, index) => {
    const quoted = index % 2 === 1 && index < parts.length - 1;
    if (quoted) {
      const words = unitsOf(part).flat();
      if (words.length > 1) {
        phrases.push(words);
        described.push(`"${words.join(words.every(isCjkCharacter) ? '' : ' ')}"`);
      } else loose.push(...words);
      return;
    }
    for (const unit of unitsOf(part)) {
      if (typeof unit === 'string') {
        loose.push(unit);
        continue;
      }
      described.push(unit.join(''));
      if (unit.length === 2) phrases.push(unit);
      else for (let start = 0; start + 1 < unit.length; start += 1) phrases.push(unit.slice(start, start + 2));
    }
  });
  const significant = loose.filter((word) => !stopWords.has(word));
  const words = [...new Set(significant.length > 0 || phrases.length > 0 ? significant : loose)];
  let budget = mostTerms;
  const keptPhrases: string[][] = [];
  for (const phrase of phrases) {
    if (budget < phrase.length) break;
    keptPhrases.push(phrase);
    budget -= phrase.length;
  }
  const keptWords = words.slice(0, Math.max(0, budget));
  return { words: keptWords, phrases: keptPhrases, described: [...keptWords, ...described] };
}

export function isEmptyQuery(terms: QueryTerms): boolean {
  return terms.words.length === 0 && terms.phrases.length === 0;
}

/** What to look for in a text to find a hit: the words, and each phrase as it would be written. */
export function termNeedles(terms: QueryTerms): string[] {
  return [...terms.words, ...terms.phrases.map((phrase) => phrase.join(phrase.every(isCjkCharacter) ? '' : ' '))];
}

/**
 * The words of a text, lower case; a run of CJK characters becomes an array of its characters,
 * or a word when it is one character.
 */
function unitsOf(text: string): (string | string[])[] {
  const units: (string | string[])[] = [];
  for (const token of text.toLowerCase().match(wordPattern) ?? []) {
    let run: string[] = [];
    const endRun = () => {
      if (run.length === 1) units.push(run[0] ?? '');
      else if (run.length > 1) units.push(run);
      run = [];
    };
    for (const piece of splitCjk(token)) {
      if (isCjkCharacter(piece)) {
        run.push(piece);
        continue;
      }
      endRun();
      if (piece.length <= longestWord) units.push(piece);
    }
    endRun();
  }
  return units;
}
