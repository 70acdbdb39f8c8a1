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
 * Resizes a region of the raster to width × height (bilinear, with OpenCV's pixel-centre
 * convention, as PaddleOCR's cv2.resize does) and writes it normalised into the top left of one
 * image slot of a CHW tensor, channels in BGR order: the models were trained on OpenCV's BGR
 * images. Tensor cells outside width × height keep their value (the caller's padding).
 */
export function writeResizedRegion(
  raster: RasterImage,
  region: PixelRegion,
  size: { readonly width: number; readonly height: number },
  normalisation: ChannelNormalisation,
  placement: TensorPlacement,
  rotateHalfTurn = false,
): void {
  const { width, height } = size;
  const columns = sampleAxis(region.x, region.width, width, rotateHalfTurn);
  const rows = sampleAxis(region.y, region.height, height, rotateHalfTurn);
  const plane = placement.tensorWidth * placement.tensorHeight;
  const base = placement.batchIndex * 3 * plane;
  // BGR planes: blue first.
  const scales = [2, 1, 0].map((channel) => 1 / (255 * (normalisation.deviation[channel] ?? 1)));
  const offsets = [2, 1, 0].map((channel) => (normalisation.mean[channel] ?? 0) / (normalisation.deviation[channel] ?? 1));
  const [blueScale = 0, greenScale = 0, redScale = 0] = scales;
  const [blueOffset = 0, greenOffset = 0, redOffset = 0] = offsets;
  const source = raster.data;
  const stride = raster.width * 4;
  for (let row = 0; row < height; row++) {
    const top = (rows.low[row] ?? 0) * stride;
    const bottom = (rows.high[row] ?? 0) * stride;
    const vertical = rows.weight[row] ?? 0;
    const rowStart = base + row * placement.tensorWidth;
    for (let column = 0; column < width; column++) {
      const left = (columns.low[column] ?? 0) * 4;
      const right = (columns.high[column] ?? 0) * 4;
      const horizontal = columns.weight[column] ?? 0;
      const topLeft = (1 - horizontal) * (1 - vertical);
      const topRight = horizontal * (1 - vertical);
      const bottomLeft = (1 - horizontal) * vertical;
      const bottomRight = horizontal * vertical;
      const sample = (channel: number): number =>
        (source[top + left + channel] ?? 0) * topLeft +
        (source[top + right + channel] ?? 0) * topRight +
        (source[bottom + left + channel] ?? 0) * bottomLeft +
        (source[bottom + right + channel] ?? 0) * bottomRight;
      const index = rowStart + column;
      placement.tensor[index] = sample(2) * blueScale - blueOffset;
      placement.tensor[index + plane] = sample(1) * greenScale - greenOffset;
      placement.tensor[index + 2 * plane] = sample(0) * redScale - redOffset;
    }
  }
}

interface AxisSamples {
  readonly low: Int32Array;
  readonly high: Int32Array;
  readonly weight: Float32Array;
}

/** Source pixel pairs and weights for each destination pixel along one axis. */
function sampleAxis(start: number, sourceLength: number, targetLength: number, reversed: boolean): AxisSamples {
  const low = new Int32Array(targetLength);
  const high = new Int32Array(targetLength);
  const weight = new Float32Array(targetLength);
  const scale = sourceLength / targetLength;
  for (let index = 0; index < targetLength; index++) {
    const target = reversed ? targetLength - 1 - index : index;
    const position = Math.min(Math.max((target + 0.5) * scale - 0.5, 0), sourceLength - 1);
    const floor = Math.floor(position);
    low[index] = start + floor;
    high[index] = start + Math.min(floor + 1, sourceLength - 1);
    weight[index] = position - floor;
  }
  return { low, high, weight };
}
