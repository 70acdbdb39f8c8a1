import type { Box, TextLine } from '../layout/page-content.ts';

/** What pdf.js's getTextContent gives for one run of text (a subset of its TextItem). */
export interface PdfTextItem {
  readonly str: string;
  readonly dir: string;
  /** Text space to PDF user space, font size included. */
  readonly transform: readonly number[];
  /** Advance in user space (horizontal writing). */
  readonly width: number;
  /** Advance in user space (vertical writing). */
  readonly height: number;
  readonly fontName: string;
}

/** pdf.js's font metrics: fractions of the font size; ascent or descent may be missing. */
export interface PdfTextStyle {
  readonly ascent?: number | null;
  readonly descent?: number | null;
  readonly vertical?: boolean;
}

/** A render of the page: user space to pixels (pdf.js viewport), and its size in pixels. */
export interface PageFrame {
  readonly transform: readonly number[];
  readonly scale: number;
  readonly width: number;
  readonly height: number;
}

/** pdf.js's own defaults when a font gives no metrics. */
const defaultAscent = 0.8;
const defaultDescent = 0.2;
/** Baselines this close (times the larger font height) are one line; lets sub/superscripts join. */
const baselineTolerance = 0.4;
/** A gap wider than this (times the font height) between runs is a word space... */
const wordGap = 0.15;
/** ...and wider than this, a gap between table cells or columns: the line is split there. */
const columnGap = 1.5;

/** One run of text placed in pixels: origin on the baseline, unit reading direction. */
interface PlacedRun {
  readonly text: string;
  readonly rightToLeft: boolean;
  /** Reading direction in degrees, rounded, to keep rotated text apart from level text. */
  readonly angle: number;
  /** Position across the reading direction (y of the baseline for level text). */
  readonly baseline: number;
  /** Start and end along the reading direction. */
  readonly start: number;
  readonly end: number;
  readonly fontHeight: number;
  readonly box: Box;
}

/**
 * The text runs of a page grouped into lines, in pixels of a render with this frame: runs on
 * one baseline, sorted along it, joined (with a space across a word gap) and split where the gap
 * is wide enough to be a column or table-cell boundary. Whitespace-only runs are dropped.
 */
export function groupTextLines(items: readonly PdfTextItem[], styles: Readonly<Record<string, PdfTextStyle>>, frame: PageFrame): TextLine[] {
  const runs: PlacedRun[] = [];
  for (const item of items) {
    // The font name comes from the document: an own entry or none, never Object.prototype's.
    const run = placeRun(item, (Object.hasOwn(styles, item.fontName) ? styles[item.fontName] : undefined) ?? {}, frame);
    if (run !== undefined) runs.push(run);
  }
  runs.sort((left, right) => left.angle - right.angle || left.baseline - right.baseline);
  const lines: TextLine[] = [];
  let index = 0;
  while (index < runs.length) {
    const anchor = runs[index] as PlacedRun;
    const group: PlacedRun[] = [];
    for (; index < runs.length; index += 1) {
      const run = runs[index] as PlacedRun;
      const tolerance = baselineTolerance * Math.max(anchor.fontHeight, run.fontHeight);
      if (run.angle !== anchor.angle || run.baseline - anchor.baseline > tolerance) break;
      group.push(run);
    }
    group.sort((left, right) => left.start - right.start);
    for (const segment of splitAtWideGaps(group)) {
      const line = joinSegment(segment, frame);
      if (line !== undefined) lines.push(line);
    }
  }
  return lines.sort((left, right) => left.box.y0 - right.box.y0 || left.box.x0 - right.box.x0);
}

/** How many characters of the runs are not whitespace (a text layer needs some to count). */
export function countVisibleCharacters(items: readonly PdfTextItem[]): number {
  let count = 0;
  for (const item of items) count += item.str.replace(/\s+/g, '').length;
  return count;
}

function placeRun(item: PdfTextItem, style: PdfTextStyle, frame: PageFrame): PlacedRun | undefined {
  if (item.str.trim() === '') return undefined;
  const matrix = multiply(frame.transform, item.transform);
  const fontHeight = Math.hypot(matrix[2] ?? 0, matrix[3] ?? 0);
  if (!(fontHeight > 0)) return undefined;
  const vertical = style.vertical === true;
  let radians = Math.atan2(matrix[1] ?? 0, matrix[0] ?? 0);
  if (vertical) radians += Math.PI / 2;
  const direction = { x: Math.cos(radians), y: Math.sin(radians) };
  // Glyph tops point a quarter turn anticlockwise (on screen) from the reading direction.
  const up = { x: direction.y, y: -direction.x };
  // pdf.js reports NaN (or nothing) for fonts whose metrics it could not read.
  const knownDescent = finitePositive(Math.abs(style.descent ?? Number.NaN));
  const descentFraction = knownDescent ?? defaultDescent;
  const ascentFraction = finitePositive(style.ascent ?? Number.NaN) ?? (knownDescent === undefined ? defaultAscent : 1 - knownDescent);
  const ascent = ascentFraction * fontHeight;
  const descent = descentFraction * fontHeight;
  const length = (vertical ? item.height : item.width) * frame.scale;
  const origin = { x: matrix[4] ?? 0, y: matrix[5] ?? 0 };
  const corners = [-descent, ascent].flatMap((rise) =>
    [0, length].map((advance) => ({
      x: origin.x + up.x * rise + direction.x * advance,
      y: origin.y + up.y * rise + direction.y * advance,
    })),
  );
  const box = {
    x0: Math.min(...corners.map((corner) => corner.x)),
    y0: Math.min(...corners.map((corner) => corner.y)),
    x1: Math.max(...corners.map((corner) => corner.x)),
    y1: Math.max(...corners.map((corner) => corner.y)),
  };
  // Text outside the page (clipped away, or parked off the sheet) is not on the page.
  if (box.x1 <= 0 || box.y1 <= 0 || box.x0 >= frame.width || box.y0 >= frame.height) return undefined;
  const start = origin.x * direction.x + origin.y * direction.y;
  return {
    text: item.str,
    rightToLeft: item.dir === 'rtl',
    angle: Math.round((radians * 180) / Math.PI + 360) % 360,
    baseline: -(origin.x * up.x + origin.y * up.y),
    start,
    end: start + length,
    fontHeight,
    box,
  };
}

/** The runs of one baseline (sorted by start) cut where the gap is a column or cell boundary. */
function splitAtWideGaps(group: readonly PlacedRun[]): PlacedRun[][] {
  const segments: PlacedRun[][] = [];
  let current: PlacedRun[] = [];
  let end = -Infinity;
  let fontHeight = 0;
  for (const run of group) {
    const height = Math.max(fontHeight, run.fontHeight);
    if (current.length > 0 && run.start - end > columnGap * height) {
      segments.push(current);
      current = [];
      end = -Infinity;
      fontHeight = 0;
    }
    current.push(run);
    end = Math.max(end, run.end);
    fontHeight = Math.max(fontHeight, run.fontHeight);
  }
  if (current.length > 0) segments.push(current);
  return segments;
}

function joinSegment(segment: readonly PlacedRun[], frame: PageFrame): TextLine | undefined {
  // Separators between visual neighbours: a space across a word gap, nothing across a tight one.
  const separators: string[] = [];
  let end = segment[0]?.end ?? 0;
  for (const run of segment.slice(1)) {
    separators.push(run.start - end > wordGap * run.fontHeight ? ' ' : '');
    end = Math.max(end, run.end);
  }
  // Right-to-left runs arrive in visual order; they read back from the last one.
  const rightToLeft = segment.filter((run) => run.rightToLeft).length * 2 > segment.length;
  const order = segment.map((_, index) => index);
  if (rightToLeft) order.reverse();
  let text = '';
  for (const [position, index] of order.entries()) {
    if (position > 0) text += separators[rightToLeft ? index : index - 1] ?? '';
    text += segment[index]?.text ?? '';
  }
  text = text.replace(/\s+/g, ' ').trim();
  if (text === '') return undefined;
  const box = {
    x0: clamp(Math.min(...segment.map((run) => run.box.x0)), frame.width),
    y0: clamp(Math.min(...segment.map((run) => run.box.y0)), frame.height),
    x1: clamp(Math.max(...segment.map((run) => run.box.x1)), frame.width),
    y1: clamp(Math.max(...segment.map((run) => run.box.y1)), frame.height),
  };
  return { text, box, confidence: 1 };
}

function finitePositive(value: number): number | undefined {
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

function clamp(value: number, limit: number): number {
  return Math.min(Math.max(value, 0), limit);
}

/** pdf.js's Util.transform: `inner` first, then `outer`. */
export function multiply(outer: readonly number[], inner: readonly number[]): number[] {
  const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = outer;
  const [g = 1, h = 0, i = 0, j = 1, k = 0, l = 0] = inner;
  return [a * g + c * h, b * g + d * h, a * i + c * j, b * i + d * j, a * k + c * l + e, b * k + d * l + f];
}
