import { boxHeight, unionBox, verticalOverlap } from './box-geometry.ts';
import type { Box } from './page-content.ts';

/** Lines side by side at the same height, left to right. */
export interface TextRow<Line extends { readonly box: Box }> {
  readonly lines: readonly Line[];
  readonly box: Box;
}

/**
 * Groups lines into rows, top to bottom: a line joins the row above when at least half of the
 * shorter of the two heights is shared (tolerates the uneven boxes of OCR and of mixed fonts).
 */
export function groupRows<Line extends { readonly box: Box }>(lines: readonly Line[]): TextRow<Line>[] {
  const centre = (box: Box) => (box.y0 + box.y1) / 2;
  const sorted = [...lines].sort((a, b) => centre(a.box) - centre(b.box) || a.box.x0 - b.box.x0);
  const rows: { lines: Line[]; box: Box; shortest: number }[] = [];
  for (const line of sorted) {
    const height = boxHeight(line.box);
    const row = rows.at(-1);
    if (row !== undefined && verticalOverlap(row.box, line.box) >= 0.5 * Math.min(height, row.shortest)) {
      row.lines.push(line);
      row.box = unionBox([row.box, line.box]);
      row.shortest = Math.min(row.shortest, height);
    } else {
      rows.push({ lines: [line], box: line.box, shortest: height });
    }
  }
  return rows.map((row) => ({ lines: row.lines.sort((a, b) => a.box.x0 - b.box.x0), box: row.box }));
}
