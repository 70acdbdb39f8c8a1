import { Tensor, type InferenceSession } from 'onnxruntime-node';
import type { RasterImage } from '../layout/page-content.ts';
import { bestClassOutput, bestProbabilityOutput } from './best-path-outputs.ts';
import { decodeCtc, type DecodedText } from './ctc-decoder.ts';
import { halfRangeNormalisation, writeResizedRegion, type PixelRegion } from './raster-ops.ts';

/** One line image to read: a region of the raster, upright or upside down. */
export interface LineCrop {
  readonly region: PixelRegion;
  readonly upsideDown: boolean;
}

export interface TextRecognitionOptions {
  /** Lines read in one inference; lines of similar width are batched together. */
  readonly batchSize: number;
  readonly signal?: AbortSignal | undefined;
}

/** The recogniser's input height. */
const lineHeight = 48;
/**
 * PaddleOCR pads every line to at least 320 pixels (its rec_image_shape 3×48×320). Short lines
 * (table cells, numbers) then cost as much as long ones: without the padding a table page was
 * read twice as fast, the texts the same but for a space now and then ("B.Jones"), so short
 * lines keep their own width here.
 */
const minimumWidth = lineHeight;

/**
 * Reads each crop with the CTC recogniser, in batches of similar aspect ratio (each crop scaled to
 * height 48, keeping its ratio, and padded on the right), and returns the texts in crop order.
 */
export async function recognizeLines(
  session: InferenceSession,
  raster: RasterImage,
  crops: readonly LineCrop[],
  dictionary: readonly string[],
  options: TextRecognitionOptions,
): Promise<DecodedText[]> {
  const ratio = (crop: LineCrop) => crop.region.width / crop.region.height;
  const order = crops.map((_, index) => index).sort((a, b) => ratio(crops[a] as LineCrop) - ratio(crops[b] as LineCrop));
  const results: DecodedText[] = new Array<DecodedText>(crops.length);
  for (let start = 0; start < order.length; start += options.batchSize) {
    options.signal?.throwIfAborted();
    const batch = order.slice(start, start + options.batchSize);
    const widest = Math.max(minimumWidth / lineHeight, ...batch.map((index) => ratio(crops[index] as LineCrop)));
    const tensorWidth = Math.ceil(lineHeight * widest);
    // Zero after normalisation is mid grey: PaddleOCR's padding.
    const input = new Float32Array(batch.length * 3 * lineHeight * tensorWidth);
    batch.forEach((cropIndex, batchIndex) => {
      const crop = crops[cropIndex] as LineCrop;
      const width = Math.min(tensorWidth, Math.ceil(lineHeight * ratio(crop)));
      writeResizedRegion(
        raster,
        crop.region,
        { width, height: lineHeight },
        halfRangeNormalisation,
        { tensor: input, batchIndex, tensorWidth, tensorHeight: lineHeight },
        crop.upsideDown,
      );
    });
    const outputs = await session.run({ x: new Tensor('float32', input, [batch.length, 3, lineHeight, tensorWidth]) }, [
      bestClassOutput,
      bestProbabilityOutput,
    ]);
    const classes = outputs[bestClassOutput];
    const probabilities = outputs[bestProbabilityOutput];
    if (classes === undefined || probabilities === undefined) throw new Error('the text recogniser returned no output');
    const [, steps = 0] = classes.dims;
    batch.forEach((cropIndex, batchIndex) => {
      results[cropIndex] = decodeCtc(classes.data as BigInt64Array, probabilities.data as Float32Array, batchIndex * steps, steps, dictionary);
    });
  }
  return results;
}

/**
 * The recogniser's classes (its probabilities' last dimension), from one inference on a blank
 * square: the dictionary must have two fewer lines (the CTC blank and the space).
 */
export async function recognizerClasses(session: InferenceSession): Promise<number> {
  const outputs = await session.run({ x: new Tensor('float32', new Float32Array(3 * lineHeight * lineHeight), [1, 3, lineHeight, lineHeight]) });
  return outputs[session.outputNames[0] ?? '']?.dims[2] ?? 0;
}
