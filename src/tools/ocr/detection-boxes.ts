import type { Box } from '../layout/page-content.ts';

/** DB post-processing settings (PaddleOCR's defaults: 0.3, 0.6, 1.5). */
export interface DetectionBoxOptions {
  /** A pixel is text when its probability is above this. */
  readonly binaryThreshold: number;
  /** A region is kept when the mean probability over its rectangle reaches this. */
  readonly boxThreshold: number;
  /** How far the shrunk text kernel is grown back: offset = area × ratio / perimeter. */
  readonly unclipRatio: number;
}

/** Regions narrower or lower than this (map pixels) are specks, as in PaddleOCR (min_size 3). */
const minimumSide = 3;

/**
 * Axis-aligned text boxes from DB's probability map, in map pixel edges: the map is thresholded,
 * 8-connected regions are scored, and each kept region's rectangle is grown by the unclip offset
 * (the model predicts a shrunk kernel of each line). Document text is horizontal, so the
 * rectangle stands in for PaddleOCR's minimum-area rotated box.
 */
export function boxesFromProbabilityMap(probabilities: Float32Array, width: number, height: number, options: DetectionBoxOptions): Box[] {
  const labels = new Int32Array(width * height);
  const stack = new Int32Array(width * height);
  const boxes: Box[] = [];
  let label = 0;
  for (let start = 0; start < labels.length; start++) {
    if (labels[start] !== 0 || (probabilities[start] ?? 0) <= options.binaryThreshold) continue;
    label++;
    labels[start] = label;
    let minX = width;
    let minY = height;
    let maxX = -1;
    let maxY = -1;
    let size = 0;
    stack[size++] = start;
    // Flood fill with an explicit stack: a long line is thousands of pixels.
    while (size > 0) {
      const index = stack[--size] ?? 0;
      const x = index % width;
      const y = (index - x) / width;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
      for (let dy = -1; dy <= 1; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= width) continue;
          const neighbour = ny * width + nx;
          if (labels[neighbour] !== 0 || (probabilities[neighbour] ?? 0) <= options.binaryThreshold) continue;
          labels[neighbour] = label;
          stack[size++] = neighbour;
        }
      }
    }
    const box = grownBox(probabilities, width, { minX, minY, maxX, maxY }, options);
    if (box !== null) boxes.push(box);
  }
  return boxes;
}

interface PixelExtent {
  readonly minX: number;
  readonly minY: number;
  readonly maxX: number;
  readonly maxY: number;
}

function grownBox(probabilities: Float32Array, width: number, extent: PixelExtent, options: DetectionBoxOptions): Box | null {
  const boxWidth = extent.maxX - extent.minX + 1;
  const boxHeight = extent.maxY - extent.minY + 1;
  if (Math.min(boxWidth, boxHeight) < minimumSide) return null;
  if (rectangleMean(probabilities, width, extent) < options.boxThreshold) return null;
  const offset = (boxWidth * boxHeight * options.unclipRatio) / (2 * (boxWidth + boxHeight));
  if (Math.min(boxWidth, boxHeight) + 2 * offset < minimumSide + 2) return null;
  return {
    x0: extent.minX - offset,
    y0: extent.minY - offset,
    x1: extent.maxX + 1 + offset,
    y1: extent.maxY + 1 + offset,
  };
}

/** Mean probability over the region's rectangle (PaddleOCR's "fast" box score). */
function rectangleMean(probabilities: Float32Array, width: number, extent: PixelExtent): number {
  let sum = 0;
  for (let y = extent.minY; y <= extent.maxY; y++) {
    const row = y * width;
    for (let x = extent.minX; x <= extent.maxX; x++) sum += probabilities[row + x] ?? 0;
  }
  return sum / ((extent.maxX - extent.minX + 1) * (extent.maxY - extent.minY + 1));
}
