import { hasUnspacedScript } from './join-line-texts.ts';

/** Signs that make a line mathematics (a plain hyphen or slash does not: dates, page numbers). */
const mathOperator = /[=+×÷^√∛∑∏∫∮≤≥≈≠≡±∓∂∞∇→⇒⇔∈∉⊂⊆∪∩<>]/u;
/** Words that are mathematics, not prose. */
const mathWords = new Set([
  'sin',
  'cos',
  'tan',
  'cot',
  'sec',
  'csc',
  'sinh',
  'cosh',
  'tanh',
  'log',
  'exp',
  'lim',
  'max',
  'min',
  'sup',
  'inf',
  'det',
  'mod',
  'arg',
  'sqrt',
  'dx',
  'dy',
  'dt',
]);

/**
 * Whether a block's text is mostly mathematics: it holds an operator, at most one prose word
 * (a run of three letters or more that is not a function name) and prose letters make up at
 * most a third of its characters. CJK text is prose.
 */
export function isFormulaText(text: string): boolean {
  const compact = text.replace(/\s+/g, '');
  if (compact === '' || compact.length > 300 || !mathOperator.test(compact) || hasUnspacedScript(text)) return false;
  const words = (text.match(/\p{L}{3,}/gu) ?? []).filter((word) => !mathWords.has(word.toLowerCase()) && !/^\p{Script=Greek}+$/u.test(word));
  const proseLetters = words.reduce((sum, word) => sum + word.length, 0);
  return words.length <= 1 && proseLetters <= compact.length / 3;
}

/** A block that may be a heading: its line height and how many lines it has. */
export interface HeadingCandidate {
  readonly lineHeight: number;
  readonly rowCount: number;
  readonly text: string;
}

/**
 * Heading levels by size: a block of one or two short lines whose line height is at least 1.25
 * times the body's (the page's median line) is a heading; the largest size is level 1, the next
 * 2 and so on (sizes within 10 % of each other share a level, at most 6 levels). Undefined for
 * the other blocks.
 */
export function headingLevels(blocks: readonly HeadingCandidate[], bodyLineHeight: number): (number | undefined)[] {
  const isHeading = (block: HeadingCandidate) =>
    bodyLineHeight > 0 && block.rowCount <= 2 && [...block.text].length <= 200 && block.lineHeight >= 1.25 * bodyLineHeight;
  const sizes = blocks
    .filter(isHeading)
    .map((block) => block.lineHeight)
    .sort((a, b) => b - a);
  const levelTops: number[] = [];
  for (const size of sizes) {
    const top = levelTops.at(-1);
    if (top === undefined || size < top / 1.1) levelTops.push(size);
  }
  return blocks.map((block) => {
    if (!isHeading(block)) return undefined;
    const level = levelTops.findIndex((top) => block.lineHeight >= top / 1.1) + 1;
    return Math.min(6, Math.max(1, level));
  });
}
