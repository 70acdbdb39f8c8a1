import { availableParallelism } from 'node:os';
import type { RasterImage, TextLine } from '../layout/page-content.ts';
import type { DecodedText } from './ctc-decoder.ts';
import { upsideDownProbabilities } from './direction-classifier.ts';
import { loadOcrModels, type OcrModels } from './ocr-models.ts';
import { pixelRegion, type PixelRegion } from './raster-ops.ts';
import { inReadingOrder } from './reading-order.ts';
import { detectTextBoxes } from './text-detection.ts';
import { recognizeLines } from './text-recognition.ts';

export interface PaddleOcrOptions {
  /**
   * Threads each model uses (onnxruntime intraOpNumThreads); default half the cores (1 to 4). On
   * the shared 2-core machine one thread read 11.9 pages/min and two 8.3 (alone, two threads
   * make one recognition ~1.5× faster).
   */
  readonly threads?: number;
  /** Longer side of the image the detector sees; default 1280 (keeps 8-pt text of a 150-dpi A4 page). */
  readonly detectionSideLimit?: number;
  /**
   * Run the 0°/180° line classifier and turn the lines it finds upside down; default false, as in
   * PaddleOCR. Worth it for scans that may lie upside down; it cost 0.2-0.5 s of a ~5 s page here.
   */
  readonly classifyDirection?: boolean;
  /** Lines recognised per inference; default 2 (larger batches were slower on a CPU). */
  readonly recognitionBatchSize?: number;
  /** Lines whose mean character probability is below this are dropped; default 0.5 (PaddleOCR's). */
  readonly minimumConfidence?: number;
}

export interface RecognizeOptions {
  readonly signal?: AbortSignal | undefined;
}

/**
 * PaddleOCR's default is 1.5; on rendered document lines that box hugs the glyphs and the
 * recogniser then drops the spaces between words (measured: CER 10% at 1.5, under 1% at 2.0).
 */
const unclipRatio = 2;
/** PaddleOCR's cls_thresh: a line is read the other way up too above this probability. */
const upsideDownThreshold = 0.9;

/** Sessions are shared by every PaddleOcr in the process with the same thread count. */
const loadedModels = new Map<number, Promise<OcrModels>>();

function modelsFor(threads: number): Promise<OcrModels> {
  let models = loadedModels.get(threads);
  if (models === undefined) {
    models = loadOcrModels({ threads });
    // A failed load is not kept: the next call tries again.
    models.catch(() => loadedModels.delete(threads));
    loadedModels.set(threads, models);
  }
  return models;
}

/**
 * PaddleOCR (PP-OCRv4 detection and recognition, optional direction classification) on
 * onnxruntime, in process. The ONNX sessions load on the first recognition (concurrent first
 * calls share one load) and are kept for the life of the process.
 */
export class PaddleOcr {
  readonly #threads: number;
  readonly #sideLimit: number;
  readonly #classifyDirection: boolean;
  readonly #batchSize: number;
  readonly #minimumConfidence: number;

  constructor(options: PaddleOcrOptions = {}) {
    this.#threads = options.threads ?? Math.max(1, Math.min(4, Math.floor(availableParallelism() / 2)));
    this.#sideLimit = options.detectionSideLimit ?? 1280;
    this.#classifyDirection = options.classifyDirection ?? false;
    this.#batchSize = options.recognitionBatchSize ?? 2;
    this.#minimumConfidence = options.minimumConfidence ?? 0.5;
  }

  /** Loads the models now rather than on the first recognition. */
  async warmUp(): Promise<void> {
    await modelsFor(this.#threads);
  }

  /**
   * Text lines of the raster, boxes in its pixels, in reading order (top to bottom, then left to
   * right), confidence the mean probability of the line's characters. Rejects with the signal's
   * reason when it is aborted (checked between stages and recognition batches).
   */
  async recognize(raster: RasterImage, options: RecognizeOptions = {}): Promise<TextLine[]> {
    const { signal } = options;
    signal?.throwIfAborted();
    const models = await modelsFor(this.#threads);
    signal?.throwIfAborted();
    const boxes = await detectTextBoxes(models.detection, raster, {
      sideLimit: this.#sideLimit,
      binaryThreshold: 0.3,
      boxThreshold: 0.6,
      unclipRatio,
    });
    const regions = boxes.flatMap((box) => pixelRegion(raster, box) ?? []);
    if (regions.length === 0) return [];
    signal?.throwIfAborted();
    const texts = this.#classifyDirection
      ? await this.#readEitherWayUp(models, raster, regions, signal)
      : await recognizeLines(
          models.recognition,
          raster,
          regions.map((region) => ({ region, upsideDown: false })),
          models.dictionary,
          { batchSize: this.#batchSize, signal },
        );
    const lines: TextLine[] = [];
    regions.forEach((region, index) => {
      const decoded = texts[index];
      const text = decoded?.text.trim() ?? '';
      if (decoded === undefined || decoded.confidence < this.#minimumConfidence || text.length === 0) return;
      lines.push({
        text,
        box: { x0: region.x, y0: region.y, x1: region.x + region.width, y1: region.y + region.height },
        confidence: decoded.confidence,
      });
    });
    return inReadingOrder(lines);
  }

  /**
   * Reads each line the way up the page lies (the majority of its lines' classifications), and
   * also the other way up where a line's own classification disagrees with high confidence; the
   * more confident reading wins. On rendered pages the vote was 0-11% "turned" for upright pages
   * and 98-100% for the same pages turned 180°.
   */
  async #readEitherWayUp(
    models: OcrModels,
    raster: RasterImage,
    regions: readonly PixelRegion[],
    signal: AbortSignal | undefined,
  ): Promise<DecodedText[]> {
    const probabilities = await upsideDownProbabilities(models.classification, raster, regions, { batchSize: 32, signal });
    const pageTurned = probabilities.filter((probability) => probability >= 0.5).length > probabilities.length / 2;
    const recognition = { batchSize: this.#batchSize, signal };
    const read = (indices: readonly number[], upsideDown: boolean) =>
      recognizeLines(
        models.recognition,
        raster,
        indices.map((index) => ({ region: regions[index] as PixelRegion, upsideDown })),
        models.dictionary,
        recognition,
      );
    const texts = await read(regions.map((_, index) => index), pageTurned);
    const doubtful = probabilities.flatMap((probability, index) =>
      (pageTurned ? 1 - probability : probability) >= upsideDownThreshold ? [index] : [],
    );
    if (doubtful.length === 0) return texts;
    const otherWay = await read(doubtful, !pageTurned);
    doubtful.forEach((lineIndex, index) => {
      const candidate = otherWay[index];
      if (candidate !== undefined && candidate.confidence > (texts[lineIndex]?.confidence ?? 0)) texts[lineIndex] = candidate;
    });
    return texts;
  }
}

let shared: PaddleOcr | undefined;

/** The process's recogniser with default options (its sessions load on first use). */
export function sharedPaddleOcr(): PaddleOcr {
  shared ??= new PaddleOcr();
  return shared;
}

/** The shared instance, or one that also classifies line direction (its sessions are shared too). */
export function paddleOcrFor(options: { readonly classifyDirection?: boolean | undefined }): PaddleOcr {
  return options.classifyDirection === true ? new PaddleOcr({ classifyDirection: true }) : sharedPaddleOcr();
}
