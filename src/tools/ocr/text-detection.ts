import { Tensor, type InferenceSession } from 'onnxruntime-node';
import type { Box, RasterImage } from '../layout/page-content.ts';
import { boxesFromProbabilityMap, type DetectionBoxOptions } from './detection-boxes.ts';
import { inkedRegion, writeResizedRegion, type ChannelNormalisation, type PixelRegion } from './raster-ops.ts';

export interface TextDetectionOptions extends DetectionBoxOptions {
  /** The longer side of the image the detector sees, in pixels; larger rasters are scaled down. */
  readonly sideLimit: number;
}

/** ImageNet statistics, as PaddleOCR's detector normalises its input. */
const imageNetNormalisation: ChannelNormalisation = {
  mean: [0.485, 0.456, 0.406],
  deviation: [0.229, 0.224, 0.225],
};

/** Boxes narrower or lower than this (raster pixels) are dropped, as PaddleOCR does. */
const minimumBoxSide = 4;
/**
 * Blank kept around the inked part of the page, in detector pixels, so that the detector sees
 * text with as much white around it as on the whole page.
 */
const blankBorder = 32;

/**
 * DB text detection: axis-aligned boxes of text lines in raster pixels. The raster is scaled for
 * the detector as a whole, but only the window of it around the ink goes through the network (the
 * margins of a page are a fifth to a third of it; a blank page needs no detection at all), sampled
 * exactly as the whole would be.
 */
export async function detectTextBoxes(session: InferenceSession, raster: RasterImage, options: TextDetectionOptions): Promise<Box[]> {
  const inked = inkedRegion(raster);
  if (inked === null) return [];
  const whole = detectorInputSize(raster, options.sideLimit);
  const scaleX = raster.width / whole.width;
  const scaleY = raster.height / whole.height;
  const [x, width] = windowSpan(inked.x / scaleX, (inked.x + inked.width) / scaleX, whole.width);
  const [y, height] = windowSpan(inked.y / scaleY, (inked.y + inked.height) / scaleY, whole.height);
  const window: PixelRegion = { x, y, width, height };
  const input = new Float32Array(3 * width * height);
  writeResizedRegion(
    raster,
    { x: 0, y: 0, width: raster.width, height: raster.height },
    whole,
    imageNetNormalisation,
    { tensor: input, batchIndex: 0, tensorWidth: width, tensorHeight: height },
    false,
    window,
  );
  const outputs = await session.run({ x: new Tensor('float32', input, [1, 3, height, width]) });
  const output = outputs[session.outputNames[0] ?? ''];
  if (output === undefined) throw new Error('the text detector returned no probability map');
  const map = output.data as Float32Array;
  const boxes: Box[] = [];
  for (const box of boxesFromProbabilityMap(map, width, height, options)) {
    const scaled = {
      x0: clamp(Math.round((x + box.x0) * scaleX), raster.width),
      y0: clamp(Math.round((y + box.y0) * scaleY), raster.height),
      x1: clamp(Math.round((x + box.x1) * scaleX), raster.width),
      y1: clamp(Math.round((y + box.y1) * scaleY), raster.height),
    };
    if (scaled.x1 - scaled.x0 < minimumBoxSide || scaled.y1 - scaled.y0 < minimumBoxSide) continue;
    boxes.push(scaled);
  }
  return boxes;
}

/**
 * The detector's input size for the whole raster: scaled so that its longer side is at most the
 * limit (never enlarged), each side rounded to a multiple of 32 as the network's strides require.
 */
export function detectorInputSize(raster: RasterImage, sideLimit: number): { width: number; height: number } {
  const ratio = Math.min(1, sideLimit / Math.max(raster.width, raster.height));
  const round = (side: number) => Math.max(32, Math.round((side * ratio) / 32) * 32);
  return { width: round(raster.width), height: round(raster.height) };
}

/**
 * Start and length, along one axis of the scaled raster (`length` pixels, a multiple of 32), of the
 * span from `from` to `to` with the blank border around it, widened to a multiple of 32 and kept
 * within the raster.
 */
function windowSpan(from: number, to: number, length: number): [number, number] {
  const size = Math.min(length, Math.ceil((to - from + 2 * blankBorder) / 32) * 32);
  return [Math.max(0, Math.min(Math.floor(from) - blankBorder, length - size)), size];
}

function clamp(value: number, limit: number): number {
  return Math.min(Math.max(value, 0), limit);
}
