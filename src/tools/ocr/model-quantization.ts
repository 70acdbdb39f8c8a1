import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { detectorCalibration, recogniserCalibration, type Calibration } from './calibrated-ranges.ts';
import { OnnxGraph, type GraphNode } from './onnx-graph.ts';
import { pointwiseConvolutions, quantizeConvolutions, ungroupedConvolutions } from './quantize-convolutions.ts';
import { quantizeMatrixProducts } from './quantize-matrix-products.ts';

/**
 * The convolutions of each model that run in 8 bits (and whose ranges `npm run calibrate:ocr`
 * measures). The recogniser's depthwise ones stay in floats: in 8 bits they read more slowly and
 * worse.
 */
export const quantizedConvolutions = {
  recognition: pointwiseConvolutions,
  detection: ungroupedConvolutions,
} as const satisfies Record<string, (graph: OnnxGraph) => GraphNode[]>;

/**
 * The simplified recogniser with its pointwise convolutions and its products by constant
 * matrices in 8 bits (~35% less CPU per line, bench:ocr's character error rate unchanged), when
 * the model is the one its ranges were calibrated on; otherwise the float network unchanged:
 * another model's ranges would be wrong, and its accuracy in 8 bits unknown.
 */
export function quantizedRecognizer(original: Uint8Array, simplified: Uint8Array): Uint8Array {
  return quantized(original, simplified, recogniserCalibration, (graph, weightLimit) => {
    const convolutions = quantizeConvolutions(graph, quantizedConvolutions.recognition, recogniserCalibration.ranges, weightLimit);
    return convolutions > 0 ? convolutions + quantizeMatrixProducts(graph, weightLimit) : 0;
  });
}

/**
 * The simplified detector with its ungrouped convolutions in 8 bits (~10% less CPU per page, the
 * boxes of bench:ocr's pages within a few pixels of the float network's), under the same
 * condition as quantizedRecognizer.
 */
export function quantizedDetector(original: Uint8Array, simplified: Uint8Array): Uint8Array {
  return quantized(original, simplified, detectorCalibration, (graph, weightLimit) =>
    quantizeConvolutions(graph, quantizedConvolutions.detection, detectorCalibration.ranges, weightLimit),
  );
}

/** The simplified model rewritten by `quantize` (which says how many nodes it changed). */
function quantized(
  original: Uint8Array,
  simplified: Uint8Array,
  calibration: Calibration,
  quantize: (graph: OnnxGraph, weightLimit: 63 | 127) => number,
): Uint8Array {
  if (createHash('sha256').update(original).digest('hex') !== calibration.modelSha256) return simplified;
  const graph = new OnnxGraph(simplified);
  return quantize(graph, hasIntegerDotProducts() ? 127 : 63) > 0 ? graph.toBytes() : simplified;
}

/**
 * Whether the CPU has VNNI's 8-bit dot products. Without them onnxruntime multiplies unsigned
 * 8-bit activations by signed 8-bit weights (convolutions and matrix products alike) in pairs
 * summed into 16 bits, which overflows with
 * full-range weights; 7-bit weights cannot overflow there (bench:ocr's error rate 0.11% instead
 * of 0.10%, tesseract's 0.79%). Unknown (no /proc/cpuinfo) counts as without.
 */
function hasIntegerDotProducts(): boolean {
  try {
    return /^flags\s*:.*\b(avx512_vnni|avx_vnni)\b/m.test(readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    return false;
  }
}
