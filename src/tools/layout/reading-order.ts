import { boxHeight } from './box-geometry.ts';
import type { Box } from './page-content.ts';

interface Gutter {
  readonly x0: number;
  readonly x1: number;
}

/**
 * Puts page items (lines, tables, pictures) in reading order, column aware. Returns runs of
 * items that read top to bottom within one column ("leaves"), in reading order.
 *
 * A gutter is a vertical strip of whitespace, at least `minGutter` wide, with items side by side
 * across it at two heights or more, and crossed by fewer items than keep to its sides. Items that
 * cross a gutter (titles, full-width paragraphs and tables) cut the page into bands; within a
 * band the columns are read left to right, each column analysed again (it may hold columns of
 * its own); the crossing items are read where they stand, between the bands, together with any
 * band that has text on one side only (the short last line of a full-width paragraph).
 */
export function readingOrder<Item extends { readonly box: Box }>(items: readonly Item[], minGutter: number): Item[][] {
  const leaves: Item[][] = [];
  order(items, minGutter, leaves);
  return leaves;
}

function order<Item extends { readonly box: Box }>(items: readonly Item[], minGutter: number, leaves: Item[][]): void {
  if (items.length === 0) return;
  const gutters = findGutters(items, minGutter);
  if (gutters.length === 0) {
    leaves.push(topDown(items));
    return;
  }
  const crosses = (box: Box) => gutters.some((gutter) => box.x0 < gutter.x1 && box.x1 > gutter.x0);
  const centreY = (box: Box) => (box.y0 + box.y1) / 2;
  const spanning = items.filter((item) => crosses(item.box)).sort((a, b) => centreY(a.box) - centreY(b.box));
  // Band k holds the column items below k spanning items; spanning item k follows band k.
  const bands: Item[][] = Array.from({ length: spanning.length + 1 }, () => []);
  for (const item of items) {
    if (crosses(item.box)) continue;
    const below = spanning.filter((span) => centreY(span.box) < centreY(item.box)).length;
    bands[below]?.push(item);
  }
  // Spanning items and the bands without columns between them (a full-width paragraph's short last
  // line sits on one side of the gutter) read as one flow; bands with columns read column by column.
  let flow: Item[] = [];
  const flushFlow = () => {
    if (flow.length === items.length) leaves.push(topDown(flow));
    else order(flow, minGutter, leaves);
    flow = [];
  };
  bands.forEach((band, index) => {
    const columns = splitColumns(band, gutters).filter((column) => column.length > 0);
    if (columns.length >= 2) {
      flushFlow();
      for (const column of columns) order(column, minGutter, leaves);
    } else {
      flow.push(...band);
    }
    const span = spanning[index];
    if (span !== undefined) flow.push(span);
  });
  flushFlow();
}

function topDown<Item extends { readonly box: Box }>(items: readonly Item[]): Item[] {
  return [...items].sort((a, b) => a.box.y0 - b.box.y0 || a.box.x0 - b.box.x0);
}

function splitColumns<Item extends { readonly box: Box }>(items: readonly Item[], gutters: readonly Gutter[]): Item[][] {
  const columns: Item[][] = Array.from({ length: gutters.length + 1 }, () => []);
  for (const item of items) {
    const centre = (item.box.x0 + item.box.x1) / 2;
    columns[gutters.filter((gutter) => gutter.x1 <= centre).length]?.push(item);
  }
  return columns;
}

/**
 * Side by side: at least a gutter's width apart horizontally, and vertically closer than the
 * shorter height (columns whose baselines do not line up still pair).
 */
function sideBySide(left: Box, right: Box, minGutter: number): boolean {
  if (right.x0 - left.x1 < minGutter) return false;
  const verticalGap = Math.max(left.y0, right.y0) - Math.min(left.y1, right.y1);
  return verticalGap < Math.min(boxHeight(left), boxHeight(right));
}

/**
 * Candidate gutters are the gaps in the horizontal extent of the items that have a neighbour side
 * by side; each is kept when at least two such pairs lie across it and the items crossing it are
 * fewer than those on its two sides.
 */
function findGutters(items: readonly { readonly box: Box }[], minGutter: number): Gutter[] {
  const pairs: [Box, Box][] = [];
  for (const a of items) {
    for (const b of items) if (sideBySide(a.box, b.box, minGutter)) pairs.push([a.box, b.box]);
  }
  if (pairs.length < 2) return [];
  const spans = pairs.flat().sort((a, b) => a.x0 - b.x0);
  const gaps: Gutter[] = [];
  let reach = spans[0]?.x1 ?? 0;
  for (const box of spans) {
    if (box.x0 - reach >= minGutter) gaps.push({ x0: reach, x1: box.x0 });
    reach = Math.max(reach, box.x1);
  }
  return gaps.filter((gap) => {
    const across = pairs.filter(([left, right]) => left.x1 <= gap.x0 && right.x0 >= gap.x1).length;
    const sides = items.filter((item) => item.box.x1 <= gap.x0 || item.box.x0 >= gap.x1).length;
    return across >= 2 && items.length - sides < sides;
  });
}
