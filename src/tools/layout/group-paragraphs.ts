import { boxHeight, boxWidth, horizontalOverlap, median, unionBox } from './box-geometry.ts';
import { joinLineTexts } from './join-line-texts.ts';
import type { Box, TextLine } from './page-content.ts';
import { groupRows } from './text-rows.ts';

/** Consecutive lines of one column read as one block of text. */
export interface Paragraph {
  readonly box: Box;
  readonly text: string;
  /** Text size of its rows (one per visual line), in pixels: see rowTextSize. */
  readonly rowHeights: readonly number[];
}

/**
 * Groups the lines of one column (top to bottom) into paragraphs. A new paragraph starts where
 * the gap above a row exceeds 0.8 of the smaller line height, where the line height changes by
 * more than a quarter (a heading above its text), or where a row does not overlap the one above
 * horizontally. Same-row fragments are joined left to right.
 */
export function groupParagraphs(lines: readonly TextLine[]): Paragraph[] {
  const paragraphs: { rows: { box: Box; text: string }[] }[] = [];
  let previous: Box | undefined;
  for (const row of groupRows(lines)) {
    const text = joinLineTexts(row.lines.map((line) => line.text));
    if (text === '') continue;
    const current = paragraphs.at(-1);
    if (current !== undefined && previous !== undefined && continues(previous, row.box)) current.rows.push({ box: row.box, text });
    else paragraphs.push({ rows: [{ box: row.box, text }] });
    previous = row.box;
  }
  return paragraphs.map(({ rows }) => ({
    box: unionBox(rows.map((row) => row.box)),
    text: joinLineTexts(rows.map((row) => row.text)),
    rowHeights: rows.map((row) => rowTextSize(row.box, row.text)),
  }));
}

/** Characters that take a full em (CJK ideographs, kana, hangul, full-width forms); others about half. */
const wideCharacter = /[\u2E80-\u9FFF\uAC00-\uD7AF\uF900-\uFAFF\uFF00-\uFFEF]/u;

/**
 * A row's text size: its box height, or twice its average half-em advance when that is smaller.
 * OCR boxes of closely spaced lines grow to fill the line pitch, so a 26 px body line and a
 * 44 px title can come out nearly as tall; the width each character takes still tells them apart.
 */
function rowTextSize(box: Box, text: string): number {
  const halfEms = [...text].reduce((sum, character) => sum + (wideCharacter.test(character) ? 2 : 1), 0);
  return halfEms === 0 ? boxHeight(box) : Math.min(boxHeight(box), (2 * boxWidth(box)) / halfEms);
}

function continues(above: Box, below: Box): boolean {
  const aboveHeight = boxHeight(above);
  const belowHeight = boxHeight(below);
  const smaller = Math.min(aboveHeight, belowHeight);
  const larger = Math.max(aboveHeight, belowHeight);
  return below.y0 - above.y1 <= 0.8 * smaller && larger <= 1.25 * smaller && horizontalOverlap(above, below) > 0;
}

/** The typical line height of a paragraph. */
export function paragraphLineHeight(paragraph: Paragraph): number {
  return median(paragraph.rowHeights);
}
