import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyseLayout } from '../../../src/tools/layout/analyse-layout.ts';
import type { TextLine } from '../../../src/tools/layout/page-content.ts';
import { box, describeBlocks, textPage } from './layout-fixtures.ts';

/** Lines as [text, x0, y0, x1, y1], the way a recogniser reported them. */
function recorded(rows: readonly (readonly [string, number, number, number, number])[]): TextLine[] {
  return rows.map(([text, x0, y0, x1, y1]) => ({ text, box: box(x0, y0, x1, y1), confidence: 1 }));
}

/** The same page content, a title, two columns, a table, a figure, a footer, as the two recognisers saw it. */
const expectedOrder = [
  'text:h1 Columns and Tables',
  'text Layout analysis groups the recognised lines of a page into blocks that a reader follows in order.',
  'text A second paragraph sits in the left column too.',
  'text The right column is read after the left one has been finished, from its top to its bottom.',
  'text It ends with this line.',
  'table <table><tr><td>Name</td><td>Age</td><td>City</td></tr><tr><td>Alice</td><td>30</td><td>Paris</td></tr><tr><td>Bob</td><td>25</td><td>Oslo</td></tr></table>',
  'image ',
  'text A footer paragraph spans the whole width of the page at the bottom and closes it.',
];

describe('analyseLayout on recorded recogniser output', () => {
  it('lays out a digital PDF page (text layer lines at 2×, 12 pt columns only 290 px wide, a placed image)', () => {
    // pdfjs text-layer lines of an A4 page (pdf-lib, Helvetica) at scale 2, in the order the layer gives them.
    const lines = recorded([
      ['Columns and Tables', 300, 74, 848, 137],
      ['Layout analysis groups the', 80, 197, 365, 224],
      ['The right column is read', 640, 197, 897, 224],
      ['recognised lines of a page', 80, 229, 360, 256],
      ['after the left one has', 640, 229, 859, 256],
      ['into blocks that a reader', 80, 261, 336, 288],
      ['been finished, from its', 640, 261, 875, 288],
      ['follows in order.', 80, 293, 248, 320],
      ['top to its bottom.', 640, 293, 817, 320],
      ['A second paragraph sits', 80, 357, 339, 384],
      ['It ends with this line.', 640, 357, 856, 384],
      ['in the left column too.', 80, 389, 308, 416],
      ['Name', 160, 517, 224, 544],
      ['Age', 460, 517, 503, 544],
      ['City', 760, 517, 801, 544],
      ['Alice', 160, 557, 212, 584],
      ['30', 460, 557, 487, 584],
      ['Paris', 760, 557, 815, 584],
      ['Bob', 160, 597, 203, 624],
      ['25', 460, 597, 487, 624],
      ['Oslo', 760, 597, 809, 624],
      ['A footer paragraph spans the whole width of the page at the bottom', 80, 1117, 796, 1144],
      ['and closes it.', 80, 1149, 220, 1176],
    ]);
    const blocks = analyseLayout(textPage(lines, [box(200, 720, 900, 1020)], { width: 1190, height: 1684 }));
    assert.deepEqual(describeBlocks(blocks), expectedOrder);
  });

  it('lays out a scanned page from PaddleOCR boxes (uneven heights, touching lines, one misread word)', () => {
    // PaddleOCR (this repository's pipeline) on the same content rendered at 800×960, the figure drawn as a filled rectangle.
    const lines = recorded([
      ['Columns and Tables', 199, 38, 607, 80],
      ['Layout analysis groups the', 46, 117, 324, 147],
      ['The right column is read', 426, 117, 679, 147],
      ['recognised lines of a page', 44, 146, 319, 179],
      ['after the left one has', 427, 148, 645, 175],
      ['into blocks that a reader', 45, 176, 300, 206],
      ['been finished, from its', 425, 176, 660, 206],
      ['follows in order.', 45, 207, 213, 235],
      ['top to its bottom.', 426, 208, 607, 235],
      ['A second paragraph sits', 45, 267, 297, 297],
      ['It ends with this line.', 426, 268, 642, 295],
      ['in the left column too.', 47, 298, 274, 325],
      ['Name', 95, 378, 165, 407],
      ['Age', 315, 378, 365, 409],
      ['City', 536, 377, 585, 408],
      ['Alice', 95, 413, 154, 443],
      ['30', 316, 413, 351, 443],
      ['Paris', 535, 413, 594, 443],
      ['Bob', 95, 448, 145, 479],
      ['25', 316, 449, 351, 479],
      ['oISO', 536, 449, 590, 479],
      ['A footer paragraph spans the whole width of the page at', 46, 759, 624, 786],
      ['the bottom and closes it.', 47, 788, 302, 815],
      ['中文段落的第一行文字内容，', 47, 845, 327, 875],
      ['这是第二行。', 45, 875, 173, 909],
    ]);
    // A scanned PDF page: its one picture is the whole page.
    const blocks = analyseLayout(textPage(lines, [box(0, 0, 800, 960), box(150, 520, 650, 720)], { width: 800, height: 960 }));
    assert.deepEqual(describeBlocks(blocks), [...expectedOrder.map((block) => block.replace('Oslo', 'oISO')), 'text 中文段落的第一行文字内容，这是第二行。']);
  });
});
