import type { Box, RasterImage } from './page-content.ts';

/** A channel differing this much from the background colour is ink. */
const inkDifference = 48;

/** A region of graphics on a raster. */
export interface GraphicRegion {
  /** Around the region's ink, raster pixels. */
  readonly box: Box;
  /** Share of its ink on thin straight rules (1 for a frame or a ruled grid, low for a drawing or photo). */
  readonly ruleShare: number;
}

/**
 * Regions of a raster holding graphics: pixels unlike the background (the dominant light
 * colour) outside the text boxes, seen on a grid of small cells, grown by about 1 % of the page
 * so that the parts of a drawing join, and grouped into connected regions. The tiniest specks
 * are left out; the caller decides which regions are pictures.
 */
export function graphicRegions(raster: RasterImage, textBoxes: readonly Box[]): GraphicRegion[] {
  const { width, height, data } = raster;
  // About 400 cells along the long side: fine enough for figures, cheap on a 300 dpi scan.
  const cell = Math.max(1, Math.ceil(Math.max(width, height) / 400));
  const columns = Math.ceil(width / cell);
  const rows = Math.ceil(height / cell);
  const masked = textMask(textBoxes, cell, columns, rows);
  const background = backgroundColour(raster);
  const counts = new Uint32Array(columns * rows);
  for (let y = 0; y < height; y++) {
    const rowStart = Math.floor(y / cell) * columns;
    for (let column = 0; column < columns; column++) {
      // Text cells are not looked at: their pixels are the lines' glyphs.
      if (masked[rowStart + column] === 1) continue;
      let found = 0;
      for (let x = column * cell, end = Math.min(width, x + cell); x < end; x++) {
        const offset = (y * width + x) * 4;
        const difference = Math.max(
          Math.abs((data[offset] ?? 0) - background[0]),
          Math.abs((data[offset + 1] ?? 0) - background[1]),
          Math.abs((data[offset + 2] ?? 0) - background[2]),
        );
        if (difference > inkDifference) found++;
      }
      counts[rowStart + column] = (counts[rowStart + column] ?? 0) + found;
    }
  }
  // A tenth of a cell: a one-pixel rule counts, scanner specks do not.
  const minimum = Math.max(1, Math.ceil((cell * cell) / 10));
  const ink = new Uint8Array(columns * rows);
  for (let index = 0; index < ink.length; index++) ink[index] = masked[index] === 0 && (counts[index] ?? 0) >= minimum ? 1 : 0;
  const grown = dilate(ink, columns, rows, Math.max(1, Math.round(Math.max(columns, rows) / 100)));
  const minimumCells = Math.max(2, Math.round((columns * rows) / 2000));
  const rules = ruleCells(ink, columns, rows);
  return components(grown, ink, rules, columns, rows)
    .filter((region) => region.inkCells >= minimumCells)
    .map(({ box, inkCells, ruleCells }) => ({
      box: {
        x0: box.x0 * cell,
        y0: box.y0 * cell,
        x1: Math.min(width, (box.x1 + 1) * cell),
        y1: Math.min(height, (box.y1 + 1) * cell),
      },
      ruleShare: ruleCells / inkCells,
    }));
}

/**
 * Ink cells on a thin straight rule: on a horizontal run of at least 8 cells (2 % of the page)
 * at most 3 cells thick, or the same vertically.
 */
function ruleCells(ink: Uint8Array, columns: number, rows: number): Uint8Array {
  const across = runLengths(ink, columns, rows, 1, columns);
  const down = runLengths(ink, rows, columns, columns, 1);
  const rules = new Uint8Array(ink.length);
  for (let index = 0; index < ink.length; index++) {
    const horizontal = across[index] ?? 0;
    const vertical = down[index] ?? 0;
    rules[index] = (horizontal >= 8 && vertical <= 3) || (vertical >= 8 && horizontal <= 3) ? 1 : 0;
  }
  return rules;
}

/** For each set cell, the length of the run of set cells through it along one direction. */
function runLengths(cells: Uint8Array, length: number, lanes: number, step: number, laneStep: number): Uint16Array {
  const runs = new Uint16Array(cells.length);
  for (let lane = 0; lane < lanes; lane++) {
    let start = 0;
    for (let position = 0; position <= length; position++) {
      const set = position < length && cells[lane * laneStep + position * step] === 1;
      if (set) continue;
      for (let inRun = start; inRun < position; inRun++) runs[lane * laneStep + inRun * step] = Math.min(65_535, position - start);
      start = position + 1;
    }
  }
  return runs;
}

/** Cells under a text box, widened by a quarter of its height (glyph edges and descenders). */
function textMask(textBoxes: readonly Box[], cell: number, columns: number, rows: number): Uint8Array {
  const masked = new Uint8Array(columns * rows);
  for (const box of textBoxes) {
    const pad = (box.y1 - box.y0) / 4;
    const column0 = Math.max(0, Math.floor((box.x0 - pad) / cell));
    const column1 = Math.min(columns - 1, Math.floor((box.x1 + pad) / cell));
    const row0 = Math.max(0, Math.floor((box.y0 - pad) / cell));
    const row1 = Math.min(rows - 1, Math.floor((box.y1 + pad) / cell));
    for (let row = row0; row <= row1; row++) masked.fill(1, row * columns + column0, row * columns + column1 + 1);
  }
  return masked;
}

/** The most frequent light colour (16 levels a channel), averaged; the most frequent overall on a dark page. */
function backgroundColour(raster: RasterImage): [number, number, number] {
  const { width, height, data } = raster;
  const counts = new Uint32Array(4096);
  const sums = new Float64Array(4096 * 3);
  // About 250 000 samples whatever the size.
  const step = Math.max(1, Math.floor(Math.sqrt((width * height) / 250_000)));
  let samples = 0;
  for (let y = 0; y < height; y += step) {
    for (let x = 0; x < width; x += step) {
      const offset = (y * width + x) * 4;
      const red = data[offset] ?? 0;
      const green = data[offset + 1] ?? 0;
      const blue = data[offset + 2] ?? 0;
      const bin = ((red >> 4) << 8) | ((green >> 4) << 4) | (blue >> 4);
      counts[bin] = (counts[bin] ?? 0) + 1;
      sums[bin * 3] = (sums[bin * 3] ?? 0) + red;
      sums[bin * 3 + 1] = (sums[bin * 3 + 1] ?? 0) + green;
      sums[bin * 3 + 2] = (sums[bin * 3 + 2] ?? 0) + blue;
      samples++;
    }
  }
  let best = 0;
  let bestLight = -1;
  for (let bin = 0; bin < 4096; bin++) {
    if ((counts[bin] ?? 0) > (counts[best] ?? 0)) best = bin;
    const luminance = 0.299 * ((bin >> 8) * 16 + 8) + 0.587 * (((bin >> 4) & 15) * 16 + 8) + 0.114 * ((bin & 15) * 16 + 8);
    if (luminance >= 128 && (bestLight < 0 || (counts[bin] ?? 0) > (counts[bestLight] ?? 0))) bestLight = bin;
  }
  // A light colour counts as the paper when it covers a tenth of the page at least.
  const chosen = bestLight >= 0 && (counts[bestLight] ?? 0) >= samples / 10 ? bestLight : best;
  const count = Math.max(1, counts[chosen] ?? 0);
  return [(sums[chosen * 3] ?? 0) / count, (sums[chosen * 3 + 1] ?? 0) / count, (sums[chosen * 3 + 2] ?? 0) / count];
}

/** Cells within `radius` cells (square neighbourhood) of a set cell, set. */
function dilate(cells: Uint8Array, columns: number, rows: number, radius: number): Uint8Array {
  const across = new Uint8Array(cells.length);
  for (let row = 0; row < rows; row++) {
    // Two sweeps: distance to the nearest set cell on the left, then on the right.
    let lastSet = -Infinity;
    for (let column = 0; column < columns; column++) {
      if (cells[row * columns + column] === 1) lastSet = column;
      if (column - lastSet <= radius) across[row * columns + column] = 1;
    }
    lastSet = Infinity;
    for (let column = columns - 1; column >= 0; column--) {
      if (cells[row * columns + column] === 1) lastSet = column;
      if (lastSet - column <= radius) across[row * columns + column] = 1;
    }
  }
  const grown = new Uint8Array(cells.length);
  for (let column = 0; column < columns; column++) {
    let lastSet = -Infinity;
    for (let row = 0; row < rows; row++) {
      if (across[row * columns + column] === 1) lastSet = row;
      if (row - lastSet <= radius) grown[row * columns + column] = 1;
    }
    lastSet = Infinity;
    for (let row = rows - 1; row >= 0; row--) {
      if (across[row * columns + column] === 1) lastSet = row;
      if (lastSet - row <= radius) grown[row * columns + column] = 1;
    }
  }
  return grown;
}

interface CellRegion {
  /** Around its ink cells, in cells. */
  readonly box: Box;
  readonly inkCells: number;
  readonly ruleCells: number;
}

/** Connected regions of the grown cells (4-neighbours). */
function components(grown: Uint8Array, ink: Uint8Array, rules: Uint8Array, columns: number, rows: number): CellRegion[] {
  const seen = new Uint8Array(grown.length);
  const queue = new Int32Array(grown.length);
  const regions: CellRegion[] = [];
  for (let start = 0; start < grown.length; start++) {
    if (grown[start] !== 1 || seen[start] === 1) continue;
    let head = 0;
    let tail = 0;
    queue[tail++] = start;
    seen[start] = 1;
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    let inkCells = 0;
    let ruleCount = 0;
    while (head < tail) {
      const index = queue[head++] ?? 0;
      const column = index % columns;
      const row = (index - column) / columns;
      if (ink[index] === 1) {
        inkCells++;
        ruleCount += rules[index] ?? 0;
        x0 = Math.min(x0, column);
        y0 = Math.min(y0, row);
        x1 = Math.max(x1, column);
        y1 = Math.max(y1, row);
      }
      const neighbours = [
        column > 0 ? index - 1 : -1,
        column < columns - 1 ? index + 1 : -1,
        row > 0 ? index - columns : -1,
        row < rows - 1 ? index + columns : -1,
      ];
      for (const next of neighbours) {
        if (next < 0 || grown[next] !== 1 || seen[next] === 1) continue;
        seen[next] = 1;
        queue[tail++] = next;
      }
    }
    if (inkCells > 0) regions.push({ box: { x0, y0, x1, y1 }, inkCells, ruleCells: ruleCount });
  }
  return regions;
}
