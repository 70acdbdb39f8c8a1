import type { BackendFactory } from '../../core/backends/backend.ts';
import type { GlmOcrSettings } from './glm-ocr-settings.ts';
import { DocumentLayoutParser } from '../../tools/document/document-layout-parser.ts';
import { engineHttpError } from '../engine-http/engine-http-error.ts';
import { paddleOcrFor } from '../../tools/ocr/paddle-ocr.ts';
import { GlmOcrRefiner } from './glm-ocr-refiner.ts';
import { probeModelList } from '../engine-http/probe-engine.ts';

/** One region is a short answer; a whole page of regions is many of them. */
const defaultRegionTimeoutMs = 120_000;

/**
 * GLM-OCR served by an OpenAI-compatible vision server: the page layout comes from the in-process
 * pipeline (text layer or PaddleOCR detection, grouped into blocks), and the model reads each
 * region.
 */
export const createGlmOcrBackend: BackendFactory<GlmOcrSettings> = ({ modelName, entry }) => {
  const engine = {
    modelName,
    apiKey: entry.apiKey,
    timeoutMs: entry.timeoutMs ?? defaultRegionTimeoutMs,
    maxResponseBytes: entry.maxResponseBytes,
    httpError: (status: number, text: string) => engineHttpError(modelName, status, text),
  };
  const baseUrl = entry.baseUrl.replace(/\/+$/, '');
  const refiner = new GlmOcrRefiner(engine, baseUrl, entry.upstreamModel ?? modelName);
  const ocr = paddleOcrFor({ classifyDirection: entry.classifyDirection });
  return {
    layout: new DocumentLayoutParser({
      recognise: (raster, signal) => ocr.recognize(raster, { signal }),
      refine: (block, crop, signal) => refiner.refine(block, crop, signal),
      concurrency: entry.maxConcurrency ?? 1,
      pagesInFlight: ocr.parallelism,
    }),
    // The layout is found in process; what can be down is the vision server that reads the regions.
    probe: (signal) => probeModelList(baseUrl, entry.apiKey, signal),
  };
};
