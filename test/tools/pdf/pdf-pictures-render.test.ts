import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { Box, RasterImage } from '../../../src/tools/layout/page-content.ts';
import { openPdf } from '../../../src/tools/pdf/pdf-document.ts';
import { digitalPdf, renderPagePng, scannedPdf, type PageSpec } from '../../helpers/rendered-documents.ts';

const scan: PageSpec = {
  width: 300,
  height: 200,
  items: [{ text: 'Scanned words', x: 20, y: 20, size: 24 }],
};

/** Pixels in the box (page pixels) darker than mid grey. */
function darkPixels(raster: RasterImage, box: Box): number {
  let count = 0;
  for (let y = Math.max(0, Math.floor(box.y0)); y < Math.min(raster.height, Math.ceil(box.y1)); y += 1) {
    for (let x = Math.max(0, Math.floor(box.x0)); x < Math.min(raster.width, Math.ceil(box.x1)); x += 1) {
      const offset = (y * raster.width + x) * 4;
      if ((raster.data[offset] ?? 255) < 128 && (raster.data[offset + 1] ?? 255) < 128 && (raster.data[offset + 2] ?? 255) < 128) count += 1;
    }
  }
  return count;
}

function near(actual: Box | undefined, expected: Box, tolerance: number): void {
  assert.ok(actual, 'no box');
  for (const side of ['x0', 'y0', 'x1', 'y1'] as const) {
    assert.ok(Math.abs(actual[side] - expected[side]) <= tolerance, `${side}: ${JSON.stringify(actual)} against ${JSON.stringify(expected)}`);
  }
}

describe('a scanned PDF', () => {
  it('has no text layer and one picture covering the page', async () => {
    const pdf = await openPdf(await scannedPdf([scan]));
    try {
      const page = await pdf.page(1);
      assert.equal(page.hasTextLayer(), false);
      assert.deepEqual(page.textLines(1), []);
      assert.deepEqual(await page.pictures(1), [{ x0: 0, y0: 0, x1: 300, y1: 200 }]);
      assert.deepEqual(await page.pictures(2), [{ x0: 0, y0: 0, x1: 600, y1: 400 }]);
    } finally {
      await pdf.close();
    }
  });

  it('renders at the size asked for, dark where the text was drawn and white elsewhere', async () => {
    const pdf = await openPdf(await scannedPdf([scan]));
    try {
      const page = await pdf.page(1);
      for (const scale of [1, 2]) {
        const raster = await page.render(scale);
        assert.equal(raster.width, 300 * scale);
        assert.equal(raster.height, 200 * scale);
        assert.equal(raster.data.length, raster.width * raster.height * 4);
        const textArea = { x0: 20 * scale, y0: 20 * scale, x1: 200 * scale, y1: 50 * scale };
        assert.ok(darkPixels(raster, textArea) > 300 * scale * scale, `only ${darkPixels(raster, textArea)} dark pixels where the text is`);
        assert.equal(darkPixels(raster, { x0: 0, y0: 80 * scale, x1: raster.width, y1: raster.height }), 0);
        // Opaque white paper, not transparent black.
        assert.deepEqual([...raster.data.subarray(0, 4)], [255, 255, 255, 255]);
      }
    } finally {
      await pdf.close();
    }
  });
});

describe('a digital PDF', () => {
  it('renders its text inside the boxes its text lines give (scale 2)', async () => {
    const pdf = await openPdf(
      await digitalPdf([
        {
          width: 400,
          height: 300,
          items: [
            { text: 'Quarterly figures', x: 40, y: 40, size: 18, bold: true },
            { text: 'Revenue grew by twelve percent', x: 40, y: 90, size: 12 },
            { text: 'Footnote in serif type', x: 40, y: 250, size: 10, font: 'serif' },
          ],
        },
      ]),
    );
    try {
      const page = await pdf.page(1);
      const raster = await page.render(2);
      assert.deepEqual([raster.width, raster.height], [800, 600]);
      const lines = page.textLines(2);
      assert.equal(lines.length, 3);
      const inside = lines.reduce((sum, line) => sum + darkPixels(raster, line.box), 0);
      const all = darkPixels(raster, { x0: 0, y0: 0, x1: raster.width, y1: raster.height });
      assert.ok(all > 1000, `${all} dark pixels`);
      assert.equal(inside, all, 'every dark pixel lies inside a text line box');
    } finally {
      await pdf.close();
    }
  });

  it('gives the boxes of placed images, ignoring tiny ones and clamping to the page', async () => {
    const source = await PDFDocument.create();
    const photo = await source.embedPng(
      await renderPagePng({ width: 60, height: 40, items: [{ rect: { x: 0, y: 0, width: 60, height: 40 }, fill: '#336699' }] }),
    );
    const page = source.addPage([400, 300]);
    const font = await source.embedFont(StandardFonts.Helvetica);
    page.drawText('A caption under the photo', { x: 50, y: 90, size: 10, font });
    // Placed with its top left at (50, 60) in page coordinates (y down): 120 × 80 points.
    page.drawImage(photo, { x: 50, y: 300 - 60 - 80, width: 120, height: 80 });
    page.drawImage(photo, { x: 300, y: 200, width: 4, height: 4 });
    // Half off the right edge.
    page.drawImage(photo, { x: 350, y: 20, width: 100, height: 50 });
    const pdf = await openPdf(await source.save());
    try {
      const opened = await pdf.page(1);
      const pictures = (await opened.pictures(2)).sort((left, right) => left.x0 - right.x0);
      assert.equal(pictures.length, 2, JSON.stringify(pictures));
      near(pictures[0], { x0: 100, y0: 120, x1: 340, y1: 280 }, 0.01);
      near(pictures[1], { x0: 700, y0: 460, x1: 800, y1: 560 }, 0.01);
    } finally {
      await pdf.close();
    }
  });
});
