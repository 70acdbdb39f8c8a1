import type { Box, RasterImage } from '../layout/page-content.ts';

/** Per-channel normalisation applied as (value / 255 - mean) / deviation. */
export interface ChannelNormalisation {
  readonly mean: readonly [number, number, number];
  readonly deviation: readonly [number, number, number];
}

/** PaddleOCR's recogniser and direction classifier: values in -1..1. */
export const halfRangeNormalisation: ChannelNormalisation = { mean: [0.5, 0.5, 0.5], deviation: [0.5, 0.5, 0.5] };

/** An integer rectangle of the raster (pixel edges). */
export interface PixelRegion {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** Where and how one image is written into a float tensor of shape [N, 3, tensorHeight, tensorWidth]. */
export interface TensorPlacement {
  readonly tensor: Float32Array;
  /** Index of the image in the batch. */
  readonly batchIndex: number;
  readonly tensorWidth: number;
  readonly tensorHeight: number;
}

/** The box rounded outwards to whole pixels and clamped to the raster; null when nothing is left. */
export function pixelRegion(raster: RasterImage, box: Box): PixelRegion | null {
  const x0 = Math.max(0, Math.floor(box.x0));
  const y0 = Math.max(0, Math.floor(box.y0));
  const x1 = Math.min(raster.width, Math.ceil(box.x1));
  const y1 = Math.min(raster.height, Math.ceil(box.y1));
  if (x1 <= x0 || y1 <= y0) return null;
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

/**
 * The smallest region holding every pixel that has a channel darker than `light` (ink, rules,
 * pictures), or null for a blank raster. Alpha is ignored: rasters are decoded onto white.
 */
export function inkedRegion(raster: RasterImage, light = 224): PixelRegion | null {
  const { width, height, data } = raster;
  const isInk = (at: number) => (data[at] as number) < light || (data[at + 1] as number) < light || (data[at + 2] as number) < light;
  let minX = width;
  let maxX = -1;
  let minY = -1;
  let maxY = -1;
  for (let y = 0; y < height; y++) {
    const row = y * width * 4;
    // Only the parts of the row outside the columns known to hold ink need a look, unless those
    // parts are blank: then the row counts if anything between them is ink.
    let inked = false;
    for (let x = 0; x < minX; x++) {
      if (!isInk(row + x * 4)) continue;
      minX = x;
      inked = true;
      break;
    }
    for (let x = width - 1; x > maxX; x--) {
      if (!isInk(row + x * 4)) continue;
      maxX = x;
      inked = true;
      break;
    }
    for (let x = minX; !inked && x <= maxX; x++) inked = isInk(row + x * 4);
    if (!inked) continue;
    if (minY < 0) minY = y;
    maxY = y;
  }
  if (minY < 0) return null;
  return { x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1 };
}

/**
 * Resizes a region of the raster to width × height (bilinear, with OpenCV's pixel-centre
 * convention, as PaddleOCR's cv2.resize does) and writes it normalised into the top left of one
 * image slot of a CHW tensor, channels in BGR order: the models were trained on OpenCV's BGR
 * images. Tensor cells outside width × height keep their value (the caller's padding). With a
 * window, only that part of the resized image is written (sampled exactly as in the whole).
 */
export function writeResizedRegion(
  raster: RasterImage,
  region: PixelRegion,
  size: { readonly width: number; readonly height: number },
  normalisation: ChannelNormalisation,
  placement: TensorPlacement,
  rotateHalfTurn = false,
  window: PixelRegion = { x: 0, y: 0, width: size.width, height: size.height },
): void {
  const { width, height } = window;
  const columns = sampleAxis(region.x, region.width, size.width, rotateHalfTurn, window.x, width);
  const rows = sampleAxis(region.y, region.height, size.height, rotateHalfTurn, window.y, height);
  const plane = placement.tensorWidth * placement.tensorHeight;
  const base = placement.batchIndex * 3 * plane;
  // BGR planes: blue first.
  const scale = (channel: number) => 1 / (255 * (normalisation.deviation[channel] ?? 1));
  const offset = (channel: number) => (normalisation.mean[channel] ?? 0) / (normalisation.deviation[channel] ?? 1);
  const [redScale, greenScale, blueScale] = [scale(0), scale(1), scale(2)];
  const [redOffset, greenOffset, blueOffset] = [offset(0), offset(1), offset(2)];
  const source = raster.data;
  const tensor = placement.tensor;
  const stride = raster.width * 4;
  // Byte offsets of each column's two source pixels, computed once rather than per row: this
  // loop runs over every pixel the detector sees (a million for a page), so it is kept plain.
  const left = new Int32Array(width);
  const right = new Int32Array(width);
  for (let column = 0; column < width; column++) {
    left[column] = (columns.low[column] as number) * 4;
    right[column] = (columns.high[column] as number) * 4;
  }
  const across = columns.weight;
  // Rows between two rows of blank paper are paper themselves (255 interpolates to 255): most of a
  // page lies between its lines, so those rows are filled without sampling.
  const paper = paperRows(raster, region.y, region.height, columns);
  const [paperBlue, paperGreen, paperRed] = [255 * blueScale - blueOffset, 255 * greenScale - greenOffset, 255 * redScale - redOffset];
  for (let row = 0; row < height; row++) {
    const rowStart = base + row * placement.tensorWidth;
    if (paper(rows.low[row] as number) && paper(rows.high[row] as number)) {
      tensor.fill(paperBlue, rowStart, rowStart + width);
      tensor.fill(paperGreen, rowStart + plane, rowStart + plane + width);
      tensor.fill(paperRed, rowStart + 2 * plane, rowStart + 2 * plane + width);
      continue;
    }
    const top = (rows.low[row] as number) * stride;
    const bottom = (rows.high[row] as number) * stride;
    const down = rows.weight[row] as number;
    for (let column = 0; column < width; column++) {
      const topLeft = top + (left[column] as number);
      const topRight = top + (right[column] as number);
      const bottomLeft = bottom + (left[column] as number);
      const bottomRight = bottom + (right[column] as number);
      const along = across[column] as number;
      const index = rowStart + column;
      tensor[index] = bilinear(source, topLeft + 2, topRight + 2, bottomLeft + 2, bottomRight + 2, along, down) * blueScale - blueOffset;
      tensor[index + plane] = bilinear(source, topLeft + 1, topRight + 1, bottomLeft + 1, bottomRight + 1, along, down) * greenScale - greenOffset;
      tensor[index + 2 * plane] = bilinear(source, topLeft, topRight, bottomLeft, bottomRight, along, down) * redScale - redOffset;
    }
  }
}

/** The value between four samples, `along` of the way right and `down` of the way down. */
function bilinear(source: Uint8ClampedArray, topLeft: number, topRight: number, bottomLeft: number, bottomRight: number, along: number, down: number): number {
  const upperLeft = source[topLeft] as number;
  const lowerLeft = source[bottomLeft] as number;
  const upper = upperLeft + ((source[topRight] as number) - upperLeft) * along;
  const lower = lowerLeft + ((source[bottomRight] as number) - lowerLeft) * along;
  return upper + (lower - upper) * down;
}

/**
 * Whether a raster row is white (every byte 255, alpha included) across the columns the samples
 * read; each row of the region is looked at once, when first asked about.
 */
function paperRows(raster: RasterImage, firstRow: number, rowCount: number, columns: AxisSamples): (row: number) => boolean {
  let from = raster.width;
  let to = 0;
  for (let index = 0; index < columns.low.length; index++) {
    from = Math.min(from, columns.low[index] as number);
    to = Math.max(to, (columns.high[index] as number) + 1);
  }
  const known = new Uint8Array(rowCount); // 0 not yet looked at, 1 paper, 2 not
  const data = raster.data;
  return (row) => {
    const slot = row - firstRow;
    if (known[slot] === 0) {
      const end = (row * raster.width + to) * 4;
      let blank = true;
      for (let at = (row * raster.width + from) * 4; blank && at < end; at++) blank = data[at] === 255;
      known[slot] = blank ? 1 : 2;
    }
    return known[slot] === 1;
  };
}

interface AxisSamples {
  readonly low: Int32Array;
  readonly high: Int32Array;
  readonly weight: Float32Array;
}

/** Source pixel pairs and weights for `count` destination pixels from `first` on, along one axis. */
function sampleAxis(start: number, sourceLength: number, targetLength: number, reversed: boolean, first: number, count: number): AxisSamples {
  const low = new Int32Array(count);
  const high = new Int32Array(count);
  const weight = new Float32Array(count);
  const scale = sourceLength / targetLength;
  for (let index = 0; index < count; index++) {
    const target = reversed ? targetLength - 1 - (first + index) : first + index;
    const position = Math.min(Math.max((target + 0.5) * scale - 0.5, 0), sourceLength - 1);
    const floor = Math.floor(position);
    low[index] = start + floor;
    high[index] = start + Math.min(floor + 1, sourceLength - 1);
    weight[index] = position - floor;
  }
  return { low, high, weight };
}
