import { Tensor, type InferenceSession } from 'onnxruntime-node';
import type { RasterImage } from '../layout/page-content.ts';
import { halfRangeNormalisation, writeResizedRegion, type PixelRegion } from './raster-ops.ts';

export interface DirectionOptions {
  readonly batchSize: number;
  /** A crop is turned only when the classifier says "180°" with at least this probability. */
  readonly threshold: number;
  readonly signal?: AbortSignal | undefined;
}

/** The classifier's input: 3 × 48 × 192. */
const inputHeight = 48;
const inputWidth = 192;

/** For each region, whether its text is upside down (PaddleOCR's 0°/180° line classifier). */
export async function classifyUpsideDown(
  session: InferenceSession,
  raster: RasterImage,
  regions: readonly PixelRegion[],
  options: DirectionOptions,
): Promise<boolean[]> {
  const upsideDown: boolean[] = [];
  for (let start = 0; start < regions.length; start += options.batchSize) {
    options.signal?.throwIfAborted();
    const batch = regions.slice(start, start + options.batchSize);
    const input = new Float32Array(batch.length * 3 * inputHeight * inputWidth);
    batch.forEach((region, batchIndex) => {
      const width = Math.min(inputWidth, Math.ceil((inputHeight * region.width) / region.height));
      writeResizedRegion(raster, region, { width, height: inputHeight }, halfRangeNormalisation, {
        tensor: input,
        batchIndex,
        tensorWidth: inputWidth,
        tensorHeight: inputHeight,
      });
    });
    const outputs = await session.run({ x: new Tensor('float32', input, [batch.length, 3, inputHeight, inputWidth]) });
    const output = outputs[session.outputNames[0] ?? ''];
    if (output === undefined) throw new Error('the direction classifier returned no output');
    const scores = output.data as Float32Array;
    // Classes: 0 = upright, 1 = turned 180°.
    batch.forEach((_, batchIndex) => upsideDown.push((scores[batchIndex * 2 + 1] ?? 0) >= options.threshold));
  }
  return upsideDown;
}
