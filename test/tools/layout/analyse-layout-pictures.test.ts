import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyseLayout } from '../../../src/tools/layout/analyse-layout.ts';
import type { PageSpec } from '../../helpers/rendered-documents.ts';
import { box, describeBlocks, line, nearlyEqual, renderedPage, textPage } from './layout-fixtures.ts';

const paragraphAbove = { text: 'A paragraph above the figure.', x: 60, y: 60, size: 20 } as const;
const paragraphBelow = { text: 'Figure 1: the caption under it.', x: 60, y: 560, size: 20 } as const;
/** A 600×800 page: a line of text, a filled rectangle (a figure without text), a caption. */
const figurePage: PageSpec = {
  width: 600,
  height: 800,
  items: [paragraphAbove, { rect: { x: 100, y: 200, width: 300, height: 260 }, fill: '#3366cc' }, paragraphBelow],
};

describe('analyseLayout: pictures', () => {
  it('places a known picture in reading order and gives it the lines lying inside it', () => {
    const page = textPage(
      [line('Text before the chart.', 100, 100, 300), line('Q1', 200, 400, 30), line('Q2', 300, 400, 30), line('Text after the chart.', 100, 650, 300)],
      [box(100, 300, 500, 600)],
    );
    assert.deepEqual(describeBlocks(analyseLayout(page)), ['text Text before the chart.', 'image ', 'text Text after the chart.']);
    assert.deepEqual(analyseLayout(page)[1]?.box, box(100, 300, 500, 600));
  });

  it('finds a figure drawn on the raster (no text in it) and leaves the text alone', async () => {
    const blocks = analyseLayout(await renderedPage(figurePage));
    assert.deepEqual(
      blocks.map((block) => block.label),
      ['text', 'image', 'text'],
    );
    const figure = blocks[1]?.box;
    assert.ok(figure !== undefined && nearlyEqual(figure, box(100, 200, 400, 460), 4), JSON.stringify(figure));
    assert.equal(blocks[2]?.content, paragraphBelow.text);
  });

  it('finds the figure on a raster rendered at twice the page size (a PDF page)', async () => {
    const rendered = await renderedPage({
      width: 1200,
      height: 1600,
      items: figurePage.items.map((item) =>
        'rect' in item
          ? { ...item, rect: { x: item.rect.x * 2, y: item.rect.y * 2, width: item.rect.width * 2, height: item.rect.height * 2 } }
          : { ...item, x: item.x * 2, y: item.y * 2, size: item.size * 2 },
      ),
    });
    const halved = rendered.lines.map((recognised) => ({
      ...recognised,
      box: box(recognised.box.x0 / 2, recognised.box.y0 / 2, recognised.box.x1 / 2, recognised.box.y1 / 2),
    }));
    const blocks = analyseLayout({ ...rendered, width: 600, height: 800, lines: halved });
    const figure = blocks.find((block) => block.label === 'image')?.box;
    assert.ok(figure !== undefined && nearlyEqual(figure, box(100, 200, 400, 460), 4), JSON.stringify(figure));
  });

  it('does not let a scanned page (one picture under the whole page) swallow its text', async () => {
    const scan = await renderedPage(
      { width: 600, height: 800, items: [paragraphAbove, { text: 'More scanned text further down.', x: 60, y: 300, size: 20 }] },
      [box(0, 0, 600, 800)],
    );
    assert.deepEqual(describeBlocks(analyseLayout(scan)), [`text ${paragraphAbove.text}`, 'text More scanned text further down.']);
    const scannedFigure = await renderedPage(figurePage, [box(0, 0, 600, 800)]);
    assert.deepEqual(
      analyseLayout(scannedFigure).map((block) => block.label),
      ['text', 'image', 'text'],
    );
  });

  it('keeps a picture covering the whole page when no text lies on it', () => {
    assert.deepEqual(describeBlocks(analyseLayout(textPage([], [box(0, 0, 800, 1000)]))), ['image ']);
  });

  it('takes neither a frame around text, a ruled table nor a thin rule for pictures', async () => {
    const outline = (x: number, y: number, width: number, height: number) =>
      [
        { x, y, width, height: 2 },
        { x, y: y + height - 2, width, height: 2 },
        { x, y, width: 2, height },
        { x: x + width - 2, y, width: 2, height },
      ].map((rect) => ({ rect, fill: '#000000' }));
    // A 3×3 ruled grid at x 40–520, y 300–420: cells 160 × 40.
    const grid = [
      ...[0, 1, 2, 3].map((row) => ({ rect: { x: 40, y: 300 + row * 40, width: 482, height: 2 }, fill: '#000000' })),
      ...[0, 1, 2, 3].map((column) => ({ rect: { x: 40 + column * 160, y: 300, width: 2, height: 122 }, fill: '#000000' })),
    ];
    const cells = [
      ['Year', 'Sales', 'Profit'],
      ['2023', '120', '14'],
      ['2024', '150', '21'],
    ].flatMap((row, rowIndex) => row.map((text, column) => ({ text, x: 50 + column * 160, y: 308 + rowIndex * 40, size: 20 })));
    const page = await renderedPage({
      width: 600,
      height: 800,
      items: [
        // A frame far larger than its one line of text.
        ...outline(40, 40, 520, 200),
        { text: 'A short boxed note.', x: 60, y: 70, size: 20 },
        ...grid,
        ...cells,
        { rect: { x: 40, y: 500, width: 520, height: 3 }, fill: '#000000' },
        { text: 'Text under a rule.', x: 60, y: 520, size: 20 },
      ],
    });
    assert.deepEqual(describeBlocks(analyseLayout(page)), [
      'text A short boxed note.',
      'table <table><tr><td>Year</td><td>Sales</td><td>Profit</td></tr><tr><td>2023</td><td>120</td><td>14</td></tr><tr><td>2024</td><td>150</td><td>21</td></tr></table>',
      'text Text under a rule.',
    ]);
  });
});
