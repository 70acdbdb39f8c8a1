import { readFile } from 'node:fs/promises';
import { InferenceSession } from 'onnxruntime-node';
import { ocrModelPaths } from './ocr-model-paths.ts';
import { withBestPathOutputs } from './best-path-outputs.ts';
import { quantizedDetector, quantizedRecognizer } from './model-quantization.ts';
import { simplifyPaddleGraph } from './simplify-paddle-graph.ts';
import { recognizerClasses } from './text-recognition.ts';

export { ocrModelPaths } from './ocr-model-paths.ts';

/** The three ONNX sessions and the recogniser's character list, loaded once. */
export interface OcrModels {
  readonly detection: InferenceSession;
  readonly recognition: InferenceSession;
  readonly classification: InferenceSession;
  /** Dictionary lines in order: class i of the recogniser is entry i - 1 (class 0 is the CTC blank). */
  readonly dictionary: readonly string[];
}

export interface OcrSessionOptions {
  /** Threads one model may use for one inference. */
  readonly threads: number;
  /**
   * Run the detector and the recogniser in 8 bits where the calibrated ranges are of these models
   * (model-quantization.ts); default true.
   */
  readonly quantize?: boolean;
}

export async function loadOcrModels(options: OcrSessionOptions, paths = ocrModelPaths()): Promise<OcrModels> {
  const sessionOptions: InferenceSession.SessionOptions = {
    intraOpNumThreads: options.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    // Spinning worker threads steal the cores from the rest of the server between inferences.
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  };
  const session = async (path: string, rewrite = (_original: Uint8Array, simplified: Uint8Array) => simplified) => {
    // The same network with fewer element-wise passes: recognition runs ~1.8× faster on a CPU.
    const original = new Uint8Array(await readFile(path));
    return InferenceSession.create(rewrite(original, simplifyPaddleGraph(original).model), sessionOptions);
  };
  const [detection, recognition, classification, dictionaryText] = await Promise.all([
    session(paths.detection, (original, simplified) => (options.quantize === false ? simplified : quantizedDetector(original, simplified))),
    session(paths.recognition, (original, simplified) =>
      withBestPathOutputs(options.quantize === false ? simplified : quantizedRecognizer(original, simplified)),
    ),
    session(paths.classification),
    readFile(paths.dictionary, 'utf8'),
  ]);
  const dictionary = dictionaryText.replace(/\r?\n$/, '').split(/\r?\n/);
  const classes = await recognizerClasses(recognition);
  if (classes !== dictionary.length + 2) throw new Error(`the recogniser has ${classes} classes; its dictionary needs ${dictionary.length + 2}`);
  return { detection, recognition, classification, dictionary };
}
