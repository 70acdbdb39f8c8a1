import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { decodeCtc } from '../../../src/tools/ocr/ctc-decoder.ts';
import { boxesFromProbabilityMap } from '../../../src/tools/ocr/detection-boxes.ts';
import { ocrModelPaths } from '../../../src/tools/ocr/ocr-models.ts';
import { halfRangeNormalisation, inkedRegion, pixelRegion, writeResizedRegion } from '../../../src/tools/ocr/raster-ops.ts';
import { inReadingOrder } from '../../../src/tools/ocr/reading-order.ts';
import { simplifyPaddleGraph } from '../../../src/tools/ocr/simplify-paddle-graph.ts';
import { quantizedDetector, quantizedRecognizer } from '../../../src/tools/ocr/model-quantization.ts';
import { withBestPathOutputs } from '../../../src/tools/ocr/best-path-outputs.ts';
import { recognizeLines } from '../../../src/tools/ocr/text-recognition.ts';
import { decodeImage } from '../../../src/tools/raster/decode-image.ts';
import { renderPagePng } from '../../helpers/rendered-documents.ts';
import { detectorInputSize, detectTextBoxes } from '../../../src/tools/ocr/text-detection.ts';
import type { Box } from '../../../src/tools/layout/page-content.ts';

describe('CTC decoding', () => {
  const dictionary = ['a', 'b', 'c'];
  /** One step per entry: the winning class and its probability. */
  function steps(winners: readonly [number, number][]): { classes: BigInt64Array; probabilities: Float32Array } {
    return {
      classes: BigInt64Array.from(winners, ([winner]) => BigInt(winner)),
      probabilities: Float32Array.from(winners, ([, probability]) => probability),
    };
  }

  it('merges repeats, drops blanks, maps the last class to a space and averages the kept probabilities', () => {
    const { classes, probabilities } = steps([
      [1, 0.9],
      [1, 0.8],
      [0, 0.99],
      [1, 0.7],
      [2, 0.6],
      [4, 0.5],
      [3, 1],
      [0, 0.9],
    ]);
    const decoded = decodeCtc(classes, probabilities, 0, 8, dictionary);
    assert.equal(decoded.text, 'aab c');
    assert.ok(Math.abs(decoded.confidence - (0.9 + 0.7 + 0.6 + 0.5 + 1) / 5) < 1e-6);
  });

  it('drops spaces at either end, and their probabilities from the confidence', () => {
    const { classes, probabilities } = steps([
      [4, 0.3],
      [0, 0.9],
      [1, 0.9],
      [4, 0.6],
      [2, 0.7],
      [4, 0.2],
    ]);
    const decoded = decodeCtc(classes, probabilities, 0, 6, dictionary);
    assert.equal(decoded.text, 'a b');
    assert.ok(Math.abs(decoded.confidence - (0.9 + 0.6 + 0.7) / 3) < 1e-6);
    assert.deepEqual(decodeCtc(classes, probabilities, 5, 1, dictionary), { text: '', confidence: 0 });
  });

  it('reads one line of a batch from its offset', () => {
    const { classes, probabilities } = steps([
      [0, 1],
      [0, 1],
      [3, 0.9],
      [2, 0.8],
    ]);
    assert.deepEqual(decodeCtc(classes, probabilities, 2, 2, dictionary).text, 'cb');
    assert.deepEqual(decodeCtc(classes, probabilities, 0, 2, dictionary), { text: '', confidence: 0 });
  });
});

describe('DB boxes', () => {
  const width = 100;
  const height = 40;
  function map(fill: (x: number, y: number) => number): Float32Array {
    const probabilities = new Float32Array(width * height);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) probabilities[y * width + x] = fill(x, y);
    return probabilities;
  }
  const options = { binaryThreshold: 0.3, boxThreshold: 0.6, unclipRatio: 1.5 };

  it('grows a text kernel by area × ratio / perimeter', () => {
    const boxes = boxesFromProbabilityMap(
      map((x, y) => (x >= 10 && x < 60 && y >= 10 && y < 20 ? 0.9 : 0)),
      width,
      height,
      options,
    );
    const offset = (50 * 10 * 1.5) / (2 * 60);
    assert.equal(boxes.length, 1);
    const [box] = boxes;
    assert.ok(box !== undefined);
    for (const [actual, expected] of [
      [box.x0, 10 - offset],
      [box.y0, 10 - offset],
      [box.x1, 60 + offset],
      [box.y1, 20 + offset],
    ] as const) {
      assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} vs ${expected}`);
    }
  });

  it('drops faint regions and specks, and keeps separate lines apart', () => {
    const probabilities = map((x, y) => {
      if (y >= 5 && y < 12 && x >= 5 && x < 90) return 0.95; // a line
      if (y >= 20 && y < 27 && x >= 5 && x < 90) return 0.4; // above the binary threshold, below the box score
      if (y >= 32 && y < 34 && x >= 50 && x < 52) return 0.99; // a 2×2 speck
      return 0.01;
    });
    const boxes = boxesFromProbabilityMap(probabilities, width, height, options);
    assert.equal(boxes.length, 1);
    assert.ok((boxes[0]?.y1 ?? 0) < 20);
  });
});

describe('raster operations', () => {
  // 2×1 pixels: pure red, pure blue.
  const raster = { width: 2, height: 1, data: new Uint8ClampedArray([255, 0, 0, 255, 0, 0, 255, 255]) };
  const region = { x: 0, y: 0, width: 2, height: 1 };

  it('writes normalised BGR planes and can turn the region half way', () => {
    const tensor = new Float32Array(6);
    writeResizedRegion(raster, region, { width: 2, height: 1 }, halfRangeNormalisation, { tensor, batchIndex: 0, tensorWidth: 2, tensorHeight: 1 });
    // Blue plane, green plane, red plane; each value (v / 255 - 0.5) / 0.5.
    assert.deepEqual([...tensor], [-1, 1, -1, -1, 1, -1]);
    writeResizedRegion(raster, region, { width: 2, height: 1 }, halfRangeNormalisation, { tensor, batchIndex: 0, tensorWidth: 2, tensorHeight: 1 }, true);
    assert.deepEqual([...tensor], [1, -1, -1, -1, -1, 1]);
  });

  it('writes a window of the resized region exactly as it is in the whole', () => {
    // 5×4 pixels of varied values, resized to 7×6; the window is 3×2 from (2, 3).
    const data = new Uint8ClampedArray(5 * 4 * 4).map((_, index) => (index * 37) % 256);
    const source = { width: 5, height: 4, data };
    const whole = { x: 0, y: 0, width: 5, height: 4 };
    const all = new Float32Array(3 * 7 * 6);
    writeResizedRegion(source, whole, { width: 7, height: 6 }, halfRangeNormalisation, { tensor: all, batchIndex: 0, tensorWidth: 7, tensorHeight: 6 });
    const part = new Float32Array(3 * 3 * 2);
    const window = { x: 2, y: 3, width: 3, height: 2 };
    writeResizedRegion(
      source,
      whole,
      { width: 7, height: 6 },
      halfRangeNormalisation,
      { tensor: part, batchIndex: 0, tensorWidth: 3, tensorHeight: 2 },
      false,
      window,
    );
    const expected = [0, 1, 2].flatMap((channel) => [3, 4].flatMap((row) => [2, 3, 4].map((column) => all[channel * 42 + row * 7 + column])));
    assert.deepEqual([...part], expected);
  });

  it('fills rows between paper rows with paper and samples the rows that touch ink', () => {
    // 3×4 pixels: white but for a black row 2 and a black pixel in column 2, left out of the region.
    const data = new Uint8ClampedArray(3 * 4 * 4).fill(255);
    data.set([0, 0, 0, 255, 0, 0, 0, 255], 2 * 3 * 4);
    data.set([0, 0, 0, 255], (0 * 3 + 2) * 4);
    const tensor = new Float32Array(3 * 2 * 8);
    writeResizedRegion({ width: 3, height: 4, data }, { x: 0, y: 0, width: 2, height: 4 }, { width: 2, height: 8 }, halfRangeNormalisation, {
      tensor,
      batchIndex: 0,
      tensorWidth: 2,
      tensorHeight: 8,
    });
    // Output rows sit at source rows 0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75 and 3 (clamped).
    const plane = [1, 1, 1, 1, 1, 1, 0.5, 0.5, -0.5, -0.5, -0.5, -0.5, 0.5, 0.5, 1, 1];
    [...tensor].forEach((value, index) => assert.ok(Math.abs(value - (plane[index % 16] ?? 0)) < 1e-6, `cell ${index}: ${value}`));
  });

  it('finds the inked part of a raster, and none on a blank one', () => {
    const page = { width: 6, height: 5, data: new Uint8ClampedArray(6 * 5 * 4).fill(255) };
    assert.equal(inkedRegion(page), null);
    // A light grey speck (paper texture) is no ink; a blue pixel and a dark one are.
    page.data.set([235, 235, 235], (1 * 6 + 1) * 4);
    page.data.set([255, 255, 60], (1 * 6 + 4) * 4);
    page.data.set([20, 20, 20], (3 * 6 + 2) * 4);
    assert.deepEqual(inkedRegion(page), { x: 2, y: 1, width: 3, height: 3 });
  });

  it('clamps boxes to the raster', () => {
    assert.deepEqual(pixelRegion(raster, { x0: -3.5, y0: -1, x1: 1.2, y1: 4 }), { x: 0, y: 0, width: 2, height: 1 });
    assert.equal(pixelRegion(raster, { x0: 5, y0: 0, x1: 9, y1: 1 }), null);
  });

  it('sizes the detector input for an A4 page at 150 dpi', () => {
    assert.deepEqual(detectorInputSize({ width: 1240, height: 1754, data: new Uint8ClampedArray() }, 1280), { width: 896, height: 1280 });
    assert.deepEqual(detectorInputSize({ width: 300, height: 70, data: new Uint8ClampedArray() }, 1280), { width: 288, height: 64 });
  });
});

describe('reading order', () => {
  it('goes top to bottom, and left to right within a row whose tops differ a little', () => {
    const line = (text: string, x0: number, y0: number) => ({ text, box: { x0, y0, x1: x0 + 100, y1: y0 + 30 } });
    const ordered = inReadingOrder([line('right', 500, 100), line('second row', 40, 150), line('left', 40, 104), line('title', 40, 20)]);
    assert.deepEqual(
      ordered.map((item) => item.text),
      ['title', 'left', 'right', 'second row'],
    );
  });
});

describe('graph simplification', () => {
  it('gives the recogniser the same outputs with fewer passes over memory', async () => {
    const original = new Uint8Array(await readFile(ocrModelPaths().recognition));
    const simplified = simplifyPaddleGraph(original);
    assert.equal(simplified.hardSwishes, 28);
    assert.equal(simplified.foldedAffines, 40);
    assert.equal(simplified.channelAffines, 16);
    const options = { intraOpNumThreads: 1 };
    const [before, after] = await Promise.all([InferenceSession.create(original, options), InferenceSession.create(simplified.model, options)]);
    const input = new Float32Array(3 * 48 * 160).map((_, index) => Math.sin(index * 0.37));
    const run = async (session: InferenceSession) => {
      const outputs = await session.run({ x: new Tensor('float32', input, [1, 3, 48, 160]) });
      return outputs[session.outputNames[0] ?? '']?.data as Float32Array;
    };
    const [expected, actual] = [await run(before), await run(after)];
    assert.equal(actual.length, expected.length);
    let largest = 0;
    for (let index = 0; index < expected.length; index++) largest = Math.max(largest, Math.abs((expected[index] ?? 0) - (actual[index] ?? 0)));
    assert.ok(largest < 1e-4, `largest difference ${largest}`);
  });
});

describe('model quantization', () => {
  it('reads a rendered line in 8 bits as the float network does', async () => {
    const paths = ocrModelPaths();
    const original = new Uint8Array(await readFile(paths.recognition));
    const dictionary = (await readFile(paths.dictionary, 'utf8')).trimEnd().split(/\r?\n/);
    const { model } = simplifyPaddleGraph(original);
    const quantized = quantizedRecognizer(original, model);
    assert.notEqual(quantized, model, 'the installed model is the calibrated one');
    const options = { intraOpNumThreads: 1 };
    const [float, integer] = await Promise.all([
      InferenceSession.create(withBestPathOutputs(model), options),
      InferenceSession.create(withBestPathOutputs(quantized), options),
    ]);
    const text = 'Invoice 2025-0417: 12 items, total EUR 4,318.75 due 21/12.';
    const raster = await decodeImage(await renderPagePng({ width: 760, height: 40, items: [{ text, x: 4, y: 6, size: 24 }] }));
    const region = { x: 0, y: 0, width: raster.width, height: raster.height };
    const read = async (session: InferenceSession) => (await recognizeLines(session, raster, [{ region, upsideDown: false }], dictionary, { batchSize: 1 }))[0];
    const [expected, actual] = [await read(float), await read(integer)];
    assert.equal(expected?.text, text);
    assert.equal(actual?.text, expected.text);
    assert.ok(Math.abs((actual?.confidence ?? 0) - expected.confidence) < 0.02, `${actual?.confidence} vs ${expected.confidence}`);
  });

  it('finds the same lines in 8 bits as the float detector, each box within a few pixels', async () => {
    const original = new Uint8Array(await readFile(ocrModelPaths().detection));
    const { model } = simplifyPaddleGraph(original);
    const quantized = quantizedDetector(original, model);
    assert.notEqual(quantized, model, 'the installed model is the calibrated one');
    const options = { intraOpNumThreads: 1 };
    const [float, integer] = await Promise.all([InferenceSession.create(model, options), InferenceSession.create(quantized, options)]);
    const items = ['Quarterly results by region', 'North 1    1284    $912.40', 'Please return the signed contract to our office.'].map((text, line) => ({
      text,
      x: 60 + line * 40,
      y: 50 + line * 70,
      size: 20 + line * 4,
    }));
    const raster = await decodeImage(await renderPagePng({ width: 900, height: 300, items }));
    const detect = (session: InferenceSession) =>
      detectTextBoxes(session, raster, { sideLimit: 1280, binaryThreshold: 0.3, boxThreshold: 0.6, unclipRatio: 2 });
    const [expected, actual] = [await detect(float), await detect(integer)];
    assert.equal(expected.length, 3);
    assert.equal(actual.length, expected.length);
    const edges = (box: Box) => [box.x0, box.y0, box.x1, box.y1];
    for (const box of expected) {
      const nearest = Math.min(...actual.map((other) => Math.max(...edges(box).map((edge, index) => Math.abs(edge - (edges(other)[index] ?? 0))))));
      assert.ok(nearest <= 8, `a box moved by ${nearest} pixels`);
    }
  });

  it('leaves a model it was not calibrated on in floats', () => {
    const simplified = new Uint8Array([1, 2, 3]);
    assert.equal(quantizedRecognizer(new Uint8Array([4, 5, 6]), simplified), simplified);
    assert.equal(quantizedDetector(new Uint8Array([4, 5, 6]), simplified), simplified);
  });
});
