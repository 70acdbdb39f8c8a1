import type { Box } from './page-content.ts';

export function boxWidth(box: Box): number {
  return Math.max(0, box.x1 - box.x0);
}

export function boxHeight(box: Box): number {
  return Math.max(0, box.y1 - box.y0);
}

export function boxArea(box: Box): number {
  return boxWidth(box) * boxHeight(box);
}

/** The smallest box holding all of them (the first box when there is one). */
export function unionBox(boxes: readonly Box[]): Box {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const box of boxes) {
    x0 = Math.min(x0, box.x0);
    y0 = Math.min(y0, box.y0);
    x1 = Math.max(x1, box.x1);
    y1 = Math.max(y1, box.y1);
  }
  return boxes.length === 0 ? { x0: 0, y0: 0, x1: 0, y1: 0 } : { x0, y0, x1, y1 };
}

/** Length of the shared vertical range (0 when apart). */
export function verticalOverlap(a: Box, b: Box): number {
  return Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0));
}

/** Length of the shared horizontal range (0 when apart). */
export function horizontalOverlap(a: Box, b: Box): number {
  return Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0));
}

export function intersectionArea(a: Box, b: Box): number {
  return horizontalOverlap(a, b) * verticalOverlap(a, b);
}

/** Share of `inner`'s area that lies inside `outer` (0 for an empty inner box). */
export function fractionInside(inner: Box, outer: Box): number {
  const area = boxArea(inner);
  return area === 0 ? 0 : intersectionArea(inner, outer) / area;
}

export function clampBox(box: Box, width: number, height: number): Box {
  return {
    x0: Math.min(width, Math.max(0, box.x0)),
    y0: Math.min(height, Math.max(0, box.y0)),
    x1: Math.min(width, Math.max(0, box.x1)),
    y1: Math.min(height, Math.max(0, box.y1)),
  };
}

export function scaleBox(box: Box, scaleX: number, scaleY: number): Box {
  return { x0: box.x0 * scaleX, y0: box.y0 * scaleY, x1: box.x1 * scaleX, y1: box.y1 * scaleY };
}

/** Boxes that touch or overlap replaced by their union, until none overlap. */
export function mergeOverlapping(boxes: readonly Box[]): Box[] {
  const merged = [...boxes];
  let changed = true;
  while (changed) {
    changed = false;
    for (let first = 0; first < merged.length && !changed; first++) {
      for (let second = first + 1; second < merged.length; second++) {
        const a = merged[first] as Box;
        const b = merged[second] as Box;
        if (a.x0 <= b.x1 && b.x0 <= a.x1 && a.y0 <= b.y1 && b.y0 <= a.y1) {
          merged[first] = unionBox([a, b]);
          merged.splice(second, 1);
          changed = true;
          break;
        }
      }
    }
  }
  return merged;
}

/** The middle value (mean of the two middle ones for an even count); 0 for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}
