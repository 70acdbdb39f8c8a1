import { Tensor, type InferenceSession } from 'onnxruntime-node';
import type { RasterImage } from '../layout/page-content.ts';
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
    const outputs = await session.run({ x: new Tensor('float32', input, [batch.length, 3, lineHeight, tensorWidth]) });
    const output = outputs[session.outputNames[0] ?? ''];
    if (output === undefined) throw new Error('the text recogniser returned no output');
    const [, steps = 0, classes = 0] = output.dims;
    if (classes !== dictionary.length + 2) {
      throw new Error(`the recogniser has ${classes} classes; its dictionary needs ${dictionary.length + 2}`);
    }
    const probabilities = output.data as Float32Array;
    batch.forEach((cropIndex, batchIndex) => {
      results[cropIndex] = decodeCtc(probabilities, batchIndex * steps * classes, steps, classes, dictionary);
    });
  }
  return results;
}
