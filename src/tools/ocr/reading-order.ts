import type { Box } from '../layout/page-content.ts';

/**
 * Lines top to bottom, and left to right among lines that share a row (their vertical middles
 * are within half a line height of each other), as PaddleOCR orders its boxes.
 */
export function inReadingOrder<Line extends { readonly box: Box }>(lines: readonly Line[]): Line[] {
  const sorted = [...lines].sort((a, b) => a.box.y0 - b.box.y0 || a.box.x0 - b.box.x0);
  for (let index = 1; index < sorted.length; index++) {
    for (let back = index; back > 0; back--) {
      const current = sorted[back] as Line;
      const before = sorted[back - 1] as Line;
      if (!sameRow(current.box, before.box) || before.box.x0 <= current.box.x0) break;
      sorted[back] = before;
      sorted[back - 1] = current;
    }
  }
  return sorted;
}

function sameRow(a: Box, b: Box): boolean {
  return Math.abs((a.y0 + a.y1) / 2 - (b.y0 + b.y1) / 2) < Math.min(a.y1 - a.y0, b.y1 - b.y0) / 2;
}
