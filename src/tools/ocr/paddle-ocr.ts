import { availableParallelism } from 'node:os';
import type { Box, RasterImage, TextLine } from '../layout/page-content.ts';
import { classifyUpsideDown } from './direction-classifier.ts';
import { loadOcrModels, type OcrModels } from './ocr-models.ts';
import { pixelRegion, type PixelRegion } from './raster-ops.ts';
import { detectTextBoxes } from './text-detection.ts';
import { recognizeLines } from './text-recognition.ts';

export interface PaddleOcrOptions {
  /** Threads each model uses (onnxruntime intraOpNumThreads); default: the cores, at most 4. */
  readonly threads?: number;
  /** Longer side of the image the detector sees; default 1280 (keeps 9-pt text of a 150-dpi A4 page). */
  readonly detectionSideLimit?: number;
  /** Run the 0°/180° line classifier and turn upside-down lines; default true. */
  readonly classifyDirection?: boolean;
  /** Lines recognised per inference; default 8. */
  readonly recognitionBatchSize?: number;
  /** Lines whose mean character probability is below this are dropped; default 0.5 (PaddleOCR's). */
  readonly minimumConfidence?: number;
}

export interface RecognizeOptions {
  readonly signal?: AbortSignal;
}

/**
 * PaddleOCR's default is 1.5; on rendered document lines that box hugs the glyphs and the
 * recogniser then drops the spaces between words (measured: CER 10% at 1.5, under 1% at 2.0).
 */
const unclipRatio = 2;

/** Sessions are shared by every PaddleOcr in the process with the same thread count. */
const loadedModels = new Map<number, Promise<OcrModels>>();

function modelsFor(threads: number): Promise<OcrModels> {
  let models = loadedModels.get(threads);
  if (models === undefined) {
    models = loadOcrModels({ threads });
    // A failed load is not cached: the next call tries again.
    models.catch(() => loadedModels.delete(threads));
    loadedModels.set(threads, models);
  }
  return models;
}

/**
 * PaddleOCR (PP-OCRv4 detection, direction classification and recognition) on onnxruntime, in
 * process. The ONNX sessions load on the first recognition and are kept for the process's life.
 */
export class PaddleOcr {
  readonly #threads: number;
  readonly #sideLimit: number;
  readonly #classifyDirection: boolean;
  readonly #batchSize: number;
  readonly #minimumConfidence: number;

  constructor(options: PaddleOcrOptions = {}) {
    this.#threads = options.threads ?? Math.min(4, availableParallelism());
    this.#sideLimit = options.detectionSideLimit ?? 1280;
    this.#classifyDirection = options.classifyDirection ?? true;
    this.#batchSize = options.recognitionBatchSize ?? 8;
    this.#minimumConfidence = options.minimumConfidence ?? 0.5;
  }

  /** Text lines of the raster, boxes in its pixels, in reading order (top to bottom, left to right). */
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
    const found = boxes.flatMap((box) => {
      const region = pixelRegion(raster, box);
      return region === null ? [] : [{ box, region }];
    });
    if (found.length === 0) return [];
    signal?.throwIfAborted();
    const regions = found.map((item) => item.region);
    const upsideDown = this.#classifyDirection
      ? await classifyUpsideDown(models.classification, raster, regions, { batchSize: 16, threshold: 0.9, signal })
      : regions.map(() => false);
    const recognition = { batchSize: this.#batchSize, signal };
    const texts = await recognizeLines(
      models.recognition,
      raster,
      regions.map((region, index) => ({ region, upsideDown: upsideDown[index] ?? false })),
      models.dictionary,
      recognition,
    );
    // The classifier calls upright document lines "180°" with high confidence now and then (one
    // line in ten on rendered pages): a turned line is kept only when it also reads better.
    const turned = regions.flatMap((_region, index) => (upsideDown[index] === true ? [index] : []));
    if (turned.length > 0) {
      const crops = turned.map((index) => ({ region: regions[index] as PixelRegion, upsideDown: false }));
      const upright = await recognizeLines(models.recognition, raster, crops, models.dictionary, recognition);
      turned.forEach((lineIndex, index) => {
        const candidate = upright[index];
        if (candidate !== undefined && candidate.confidence >= (texts[lineIndex]?.confidence ?? 0)) texts[lineIndex] = candidate;
      });
    }
    const lines: TextLine[] = [];
    found.forEach((item, index) => {
      const decoded = texts[index];
      if (decoded === undefined || decoded.confidence < this.#minimumConfidence) return;
      const text = decoded.text.trim();
      if (text.length > 0) lines.push({ text, box: boxOf(item.region), confidence: decoded.confidence });
    });
    return inReadingOrder(lines);
  }
}

let shared: PaddleOcr | undefined;

/** The process's default recogniser (default options). */
export function sharedPaddleOcr(): PaddleOcr {
  shared ??= new PaddleOcr();
  return shared;
}

function boxOf(region: PixelRegion): Box {
  return { x0: region.x, y0: region.y, x1: region.x + region.width, y1: region.y + region.height };
}

/**
 * Top to bottom, then left to right among lines that share a row (their vertical middles are
 * within half a line height of each other), as PaddleOCR orders its boxes.
 */
export function inReadingOrder<Line extends { readonly box: Box }>(lines: readonly Line[]): Line[] {
  const sorted = [...lines].sort((a, b) => a.box.y0 - b.box.y0 || a.box.x0 - b.box.x0);
  const sameRow = (a: Box, b: Box) =>
    Math.abs((a.y0 + a.y1) / 2 - (b.y0 + b.y1) / 2) < Math.min(a.y1 - a.y0, b.y1 - b.y0) / 2;
  for (let index = 1; index < sorted.length; index++) {
    for (let back = index; back > 0; back--) {
      const current = sorted[back] as Line;
      const before = sorted[back - 1] as Line;
      if (!sameRow(current.box, before.box) || before.box.x0 <= current.box.x0) break;
      sorted[back] = before;
      sorted[back - 1] = current;
    }
  }
  return sorted;
}
