import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { RasterImage, TextLine } from '../../../src/tools/layout/page-content.ts';
import { PaddleOcr, sharedPaddleOcr } from '../../../src/tools/ocr/paddle-ocr.ts';
import { decodeImage } from '../../../src/tools/raster/decode-image.ts';
import { characterErrorRate, renderPagePng, type PageSpec, type TextItem } from '../../helpers/rendered-documents.ts';

/** Lines of DejaVu Sans from 20 to 28 px, the last row split in two columns. */
const englishItems: TextItem[] = [
  { text: 'The committee reviewed the annual budget on Monday.', x: 40, y: 30, size: 24 },
  { text: 'Optical character recognition turns pictures into text.', x: 40, y: 76, size: 22 },
  { text: 'Invoice 2025-0417: 12 items, total EUR 4,318.75.', x: 60, y: 120, size: 26 },
  { text: 'Please return the signed contract by 21 December.', x: 40, y: 170, size: 20 },
  { text: 'Large headings and small print share one page.', x: 40, y: 210, size: 28 },
  { text: 'Left column', x: 40, y: 266, size: 22 },
  { text: 'Right column', x: 520, y: 266, size: 22 },
];
const englishPage: PageSpec = { width: 900, height: 310, items: englishItems };

/** An A4 page at 150 dpi with full-width lines: detection alone takes ~0.3 s of CPU. */
const a4Page: PageSpec = {
  width: 1240,
  height: 1754,
  items: Array.from({ length: 12 }, (_, index) => ({
    text: `Line ${index + 1}: the committee reviewed the annual budget and approved the plan.`,
    x: 110,
    y: 110 + index * 120,
    size: 23,
  })),
};

const chineseItems: TextItem[] = [
  { text: '今天天气很好，我们去公园散步。', x: 40, y: 30, size: 28, font: 'cjk' },
  { text: '文字识别模型可以读取中文和英文。', x: 40, y: 80, size: 28, font: 'cjk' },
  { text: '北京、上海、广州和深圳都是大城市。', x: 40, y: 130, size: 26, font: 'cjk' },
];
const chinesePage: PageSpec = { width: 620, height: 180, items: chineseItems };

function joined(items: readonly TextItem[]): string {
  return items.map((item) => item.text).join('\n');
}

function text(lines: readonly TextLine[]): string {
  return lines.map((line) => line.text).join('\n');
}

/** The raster turned 180° (pixel order reversed). */
function turnedHalfWay(raster: RasterImage): RasterImage {
  const data = new Uint8ClampedArray(raster.data.length);
  const pixels = raster.data.length / 4;
  for (let index = 0; index < pixels; index++) {
    data.set(raster.data.subarray(index * 4, index * 4 + 4), (pixels - 1 - index) * 4);
  }
  return { width: raster.width, height: raster.height, data };
}

describe('PaddleOcr', () => {
  let english: RasterImage;
  let englishLines: TextLine[];

  before(async () => {
    english = await decodeImage(await renderPagePng(englishPage));
    englishLines = await sharedPaddleOcr().recognize(english);
  });

  it('reads an English page with a low character error rate', () => {
    const rate = characterErrorRate(joined(englishItems), text(englishLines));
    // Measured 0% (tesseract 5 averages ~4% on the pages of npm run bench:ocr).
    assert.ok(rate <= 0.03, `CER ${rate}: ${text(englishLines)}`);
    for (const line of englishLines) assert.ok(line.confidence > 0.5 && line.confidence <= 1, `${line.text}: ${line.confidence}`);
  });

  it('puts each box where its line was drawn, in reading order', () => {
    assert.equal(englishLines.length, englishItems.length, text(englishLines));
    englishItems.forEach((item, index) => {
      const line = englishLines[index];
      assert.ok(line !== undefined);
      assert.ok(characterErrorRate(item.text, line.text) <= 0.1, `line ${index}: ${line.text}`);
      const { x0, y0, x1, y1 } = line.box;
      // Detection boxes carry a margin of about a fifth of the line height (measured 0-5 px here).
      const tolerance = Math.max(6, item.size * 0.3);
      assert.ok(Math.abs(x0 - item.x) <= tolerance, `line ${index} x0 ${x0} vs ${item.x}`);
      assert.ok(Math.abs(y0 - item.y) <= tolerance, `line ${index} y0 ${y0} vs ${item.y}`);
      assert.ok(y1 - item.y >= item.size * 0.9 && y1 - item.y <= item.size * 1.6, `line ${index} y1 ${y1}`);
      assert.ok(x1 - x0 >= item.text.length * item.size * 0.4, `line ${index} width ${x1 - x0}`);
    });
  });

  it('reads a Chinese page', async () => {
    const lines = await sharedPaddleOcr().recognize(await decodeImage(await renderPagePng(chinesePage)));
    const rate = characterErrorRate(joined(chineseItems), text(lines));
    assert.ok(rate <= 0.1, `CER ${rate}: ${text(lines)}`);
  });

  it('finds no lines on a blank page', async () => {
    const blank = await decodeImage(await renderPagePng({ width: 600, height: 400, items: [] }));
    assert.deepEqual(await sharedPaddleOcr().recognize(blank), []);
  });

  it('reads a page that lies upside down when direction classification is on', async () => {
    const lines = await new PaddleOcr({ classifyDirection: true }).recognize(turnedHalfWay(english));
    // Boxes are in the turned raster's pixels, so its top-to-bottom order is the text's reverse.
    const rate = characterErrorRate(joined([...englishItems].reverse()), text(lines));
    assert.ok(rate <= 0.05, `CER ${rate}: ${text(lines)}`);
  });

  it('reads upright pages the same with direction classification on', async () => {
    const lines = await new PaddleOcr({ classifyDirection: true }).recognize(english);
    assert.ok(characterErrorRate(joined(englishItems), text(lines)) <= 0.03, text(lines));
  });

  it('reads pages side by side with the same results as one at a time', async () => {
    const [first, second] = await Promise.all([sharedPaddleOcr().recognize(english), sharedPaddleOcr().recognize(english)]);
    assert.deepEqual(first, englishLines);
    assert.deepEqual(second, englishLines);
  });

  it('keeps the event loop free while it reads a page', async () => {
    const page = await decodeImage(await renderPagePng(a4Page));
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const lines = await sharedPaddleOcr().recognize(page);
    delay.disable();
    assert.equal(lines.length, a4Page.items.length, text(lines));
    // With inference in the event loop its 5-ms timer fired 5 times in the 2 s of a page, 240-300
    // ms apart on average; with workers ~280 times, 7 ms apart, with a rare stall of 80-160 ms when
    // the loaded machine schedules the thread late (so the mean, not the maximum, is checked).
    const meanMs = delay.mean / 1e6;
    assert.ok(meanMs < 50, `the event loop's 5-ms timer fired ${meanMs.toFixed(0)} ms apart on average (longest ${(delay.max / 1e6).toFixed(0)} ms)`);
  });

  it('drops a page still waiting for a worker when its signal aborts, and reads the others', async () => {
    const ocr = new PaddleOcr({ workers: 1 });
    const controller = new AbortController();
    const reading = ocr.recognize(english);
    const waiting = ocr.recognize(english, { signal: controller.signal });
    controller.abort(new Error('client went away'));
    await assert.rejects(waiting, /client went away/);
    assert.deepEqual(await reading, englishLines);
  });

  it('rejects with the reason of an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort(new Error('client went away'));
    await assert.rejects(sharedPaddleOcr().recognize(english, { signal: controller.signal }), /client went away/);
  });

  it('stops when the signal is aborted while it works', async () => {
    const controller = new AbortController();
    const recognition = sharedPaddleOcr().recognize(english, { signal: controller.signal });
    controller.abort();
    await assert.rejects(recognition, { name: 'AbortError' });
  });
});
