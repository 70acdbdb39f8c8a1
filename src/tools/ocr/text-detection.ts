import { Tensor, type InferenceSession } from 'onnxruntime-node';
import type { Box, RasterImage } from '../layout/page-content.ts';
import { boxesFromProbabilityMap, type DetectionBoxOptions } from './detection-boxes.ts';
import { writeResizedRegion, type ChannelNormalisation } from './raster-ops.ts';

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

/** DB text detection: axis-aligned boxes of text lines in raster pixels. */
export async function detectTextBoxes(
  session: InferenceSession,
  raster: RasterImage,
  options: TextDetectionOptions,
): Promise<Box[]> {
  const { width, height } = detectorInputSize(raster, options.sideLimit);
  const input = new Float32Array(3 * width * height);
  writeResizedRegion(
    raster,
    { x: 0, y: 0, width: raster.width, height: raster.height },
    { width, height },
    imageNetNormalisation,
    { tensor: input, batchIndex: 0, tensorWidth: width, tensorHeight: height },
  );
  const outputs = await session.run({ x: new Tensor('float32', input, [1, 3, height, width]) });
  const output = outputs[session.outputNames[0] ?? ''];
  if (output === undefined) throw new Error('the text detector returned no probability map');
  const map = output.data as Float32Array;
  const scaleX = raster.width / width;
  const scaleY = raster.height / height;
  const boxes: Box[] = [];
  for (const box of boxesFromProbabilityMap(map, width, height, options)) {
    const scaled = {
      x0: clamp(Math.round(box.x0 * scaleX), raster.width),
      y0: clamp(Math.round(box.y0 * scaleY), raster.height),
      x1: clamp(Math.round(box.x1 * scaleX), raster.width),
      y1: clamp(Math.round(box.y1 * scaleY), raster.height),
    };
    if (scaled.x1 - scaled.x0 < minimumBoxSide || scaled.y1 - scaled.y0 < minimumBoxSide) continue;
    boxes.push(scaled);
  }
  return boxes;
}

/**
 * The detector's input size: the raster scaled so that its longer side is at most the limit
 * (never enlarged), each side rounded to a multiple of 32 as the network's strides require.
 */
export function detectorInputSize(raster: RasterImage, sideLimit: number): { width: number; height: number } {
  const ratio = Math.min(1, sideLimit / Math.max(raster.width, raster.height));
  const round = (side: number) => Math.max(32, Math.round((side * ratio) / 32) * 32);
  return { width: round(raster.width), height: round(raster.height) };
}

function clamp(value: number, limit: number): number {
  return Math.min(Math.max(value, 0), limit);
}
