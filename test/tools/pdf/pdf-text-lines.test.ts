import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { degrees, PDFDocument, StandardFonts, type PDFFont } from 'pdf-lib';
import type { TextLine } from '../../../src/tools/layout/page-content.ts';
import { openPdf, type PdfDocument } from '../../../src/tools/pdf/pdf-document.ts';
import type { PdfPage } from '../../../src/tools/pdf/pdf-page.ts';
import { digitalPdf, type PageSpec, type TextItem } from '../../helpers/rendered-documents.ts';

const size = 12;
const spec: PageSpec = {
  width: 612,
  height: 792,
  items: [
    { text: 'Annual Report of the Survey', x: 72, y: 60, size: 14 },
    // Two columns: each row is two lines, far apart.
    { text: 'Left column first row', x: 72, y: 120, size },
    { text: 'Right column first row', x: 330, y: 120, size },
    { text: 'Left column second row', x: 72, y: 136, size },
    { text: 'Right column second row', x: 330, y: 136, size },
    // A table: three cells a row, gaps of several font heights.
    { text: 'Region', x: 72, y: 220, size },
    { text: 'Units', x: 200, y: 220, size },
    { text: 'Share', x: 300, y: 220, size },
    { text: 'North', x: 72, y: 238, size },
    { text: '1200', x: 200, y: 238, size },
    { text: '45%', x: 300, y: 238, size },
  ],
};

let helvetica: PDFFont;
let pdf: PdfDocument;
let page: PdfPage;

before(async () => {
  helvetica = await (await PDFDocument.create()).embedFont(StandardFonts.Helvetica);
  pdf = await openPdf(await digitalPdf([spec]));
  page = await pdf.page(1);
});
after(() => pdf.close());

/** The advance of the text as drawn: glyph widths only (pdf-lib's own width adds kerning it does not draw). */
function advance(font: PDFFont, text: string, fontSize: number): number {
  return [...text].reduce((sum, character) => sum + font.widthOfTextAtSize(character, fontSize), 0);
}

function lineOf(lines: readonly TextLine[], text: string): TextLine {
  const line = lines.find((candidate) => candidate.text === text);
  assert.ok(line, `no line "${text}" among ${JSON.stringify(lines.map((candidate) => candidate.text))}`);
  return line;
}

/** The line's box against the spec: x exact, top and bottom within a few units (font metrics). */
function assertPlaced(line: TextLine, item: TextItem, scale: number): void {
  const width = advance(helvetica, item.text, item.size);
  assert.ok(Math.abs(line.box.x0 - item.x * scale) < 0.1, `x0 ${line.box.x0} for ${item.text}`);
  assert.ok(Math.abs(line.box.x1 - (item.x + width) * scale) < 0.1, `x1 ${line.box.x1} for ${item.text}`);
  assert.ok(Math.abs(line.box.y0 - item.y * scale) <= 2 * scale, `y0 ${line.box.y0} for ${item.text} at ${item.y * scale}`);
  assert.ok(Math.abs(line.box.y1 - (item.y + item.size) * scale) <= 2 * scale, `y1 ${line.box.y1} for ${item.text}`);
}

describe('PDF text layer as lines', () => {
  it('gives the page size in points and sees a text layer', () => {
    assert.equal(page.number, 1);
    assert.equal(page.width, 612);
    assert.equal(page.height, 792);
    assert.equal(page.hasTextLayer(), true);
  });

  for (const scale of [1, 2]) {
    it(`places every line where the spec drew it (scale ${scale})`, () => {
      const lines = page.textLines(scale);
      assert.equal(lines.length, spec.items.length, JSON.stringify(lines.map((line) => line.text)));
      for (const item of spec.items) {
        if ('rect' in item) continue;
        const line = lineOf(lines, item.text);
        assert.equal(line.confidence, 1);
        assertPlaced(line, item, scale);
      }
    });
  }

  it('keeps two columns as two lines per row, in reading order top to bottom', () => {
    const texts = page.textLines(1).map((line) => line.text);
    assert.deepEqual(texts.slice(1, 5), ['Left column first row', 'Right column first row', 'Left column second row', 'Right column second row']);
  });

  it('keeps table cells apart, one line per cell on one row', () => {
    const lines = page.textLines(1);
    const row = ['North', '1200', '45%'].map((text) => lineOf(lines, text));
    for (const cell of row) assert.ok(Math.abs(cell.box.y0 - (row[0]?.box.y0 ?? Number.NaN)) < 0.01);
  });
});

describe('joining runs on one baseline', () => {
  it('joins runs across a word gap with a space and touching runs without one, and drops blank runs', async () => {
    const bold = await (await PDFDocument.create()).embedFont(StandardFonts.HelveticaBold);
    const label = 'Total:';
    const labelEnd = 72 + advance(bold, label, size);
    const space = advance(helvetica, ' ', size);
    const document = await openPdf(
      await digitalPdf([
        {
          width: 400,
          height: 200,
          items: [
            { text: label, x: 72, y: 40, size, bold: true },
            { text: '1200 units', x: labelEnd + space, y: 40, size },
            { text: 'Hello', x: 72, y: 80, size },
            { text: 'World', x: 72 + advance(helvetica, 'Hello', size), y: 80, size },
            { text: '   ', x: 72, y: 120, size },
          ],
        },
      ]),
    );
    try {
      const lines = (await document.page(1)).textLines(1);
      assert.deepEqual(
        lines.map((line) => line.text),
        ['Total: 1200 units', 'HelloWorld'],
      );
      assert.ok(Math.abs((lines[0]?.box.x0 ?? 0) - 72) < 0.5);
      assert.ok(Math.abs((lines[0]?.box.x1 ?? 0) - (labelEnd + space + advance(helvetica, '1200 units', size))) < 0.5);
    } finally {
      await document.close();
    }
  });

  it('applies the page rotation: a /Rotate 90 page is tall and its text runs downwards', async () => {
    const source = await PDFDocument.create();
    const font = await source.embedFont(StandardFonts.Helvetica);
    const rotated = source.addPage([400, 300]);
    rotated.setRotation(degrees(90));
    rotated.drawText('Rotated heading', { x: 20, y: 270, size, font });
    const document = await openPdf(await source.save());
    try {
      const turned = await document.page(1);
      assert.equal(turned.width, 300);
      assert.equal(turned.height, 400);
      const [line] = turned.textLines(1);
      assert.equal(line?.text, 'Rotated heading');
      // Clockwise by a quarter: user (x, y) lands at pixel (y, x); the baseline is x = 270.
      const width = advance(font, 'Rotated heading', size);
      assert.ok(Math.abs((line?.box.y0 ?? 0) - 20) < 0.5 && Math.abs((line?.box.y1 ?? 0) - (20 + width)) < 0.5, JSON.stringify(line?.box));
      assert.ok((line?.box.x0 ?? 0) < 270 && (line?.box.x0 ?? 0) > 265 && (line?.box.x1 ?? 0) > 279 && (line?.box.x1 ?? 0) < 284, JSON.stringify(line?.box));
    } finally {
      await document.close();
    }
  });
});
