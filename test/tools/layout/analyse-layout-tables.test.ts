import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyseLayout } from '../../../src/tools/layout/analyse-layout.ts';
import { tableHtml } from '../../../src/tools/layout/table-html.ts';
import { line, textPage } from './layout-fixtures.ts';

/** A 3×3 grid of cells: columns at x 100, 300, 500; rows 40 px apart from y. */
function gridLines(cells: readonly (readonly (string | undefined)[])[], y: number) {
  return cells.flatMap((row, rowIndex) =>
    row.flatMap((text, column) => (text === undefined ? [] : [line(text, 100 + column * 200, y + rowIndex * 40, 12 * text.length)])),
  );
}

describe('analyseLayout: tables', () => {
  it('rebuilds a 3×3 table as HTML between the paragraphs around it, cells escaped', () => {
    const page = textPage([
      line('The people in the study are listed below.', 100, 100, 480),
      ...gridLines(
        [
          ['Name', 'Age', 'City'],
          ['Alice', '30', 'Paris'],
          ['Bob', '25', 'Oslo & <Rome>'],
        ],
        200,
      ),
      line('The table ends before this closing paragraph.', 100, 360, 520),
    ]);
    const blocks = analyseLayout(page);
    assert.deepEqual(
      blocks.map((block) => block.label),
      ['text', 'table', 'text'],
    );
    assert.equal(
      blocks[1]?.content,
      '<table><tr><td>Name</td><td>Age</td><td>City</td></tr><tr><td>Alice</td><td>30</td><td>Paris</td></tr>' +
        '<tr><td>Bob</td><td>25</td><td>Oslo &amp; &lt;Rome&gt;</td></tr></table>',
    );
    assert.deepEqual(blocks[1]?.box, { x0: 100, y0: 200, x1: 500 + 12 * 'Oslo & <Rome>'.length, y1: 300 });
  });

  it('keeps a missing cell as an empty <td> in its column', () => {
    const page = textPage(
      gridLines(
        [
          ['Item', 'Qty', 'Price'],
          ['Pen', undefined, '2.50'],
          ['Ink', '3', '9.00'],
        ],
        200,
      ),
    );
    assert.deepEqual(
      analyseLayout(page).map((block) => [block.label, block.content]),
      [
        [
          'table',
          tableHtml([
            ['Item', 'Qty', 'Price'],
            ['Pen', '', '2.50'],
            ['Ink', '3', '9.00'],
          ]),
        ],
      ],
    );
  });

  it('does not take two columns of running text, a bulleted list or a single row for a table', () => {
    const columnsOfText = [0, 1, 2].flatMap((row) => [
      line(`left column sentence number ${row + 1} here`, 60, 100 + row * 28, 320),
      line(`right column sentence number ${row + 1} here`, 420, 100 + row * 28, 320),
    ]);
    const list = [0, 1, 2].flatMap((row) => [line('•', 60, 400 + row * 28, 10), line(`list item number ${row + 1}`, 90, 400 + row * 28, 200)]);
    const singleRow = [line('Signed:', 60, 600, 80), line('Date:', 500, 600, 60)];
    const labels = analyseLayout(textPage([...columnsOfText, ...list, ...singleRow])).map((block) => block.label);
    assert.equal(labels.includes('table'), false);
  });

  it('finds a table that spans both columns of a two-column page and reads it between them', () => {
    const page = textPage([
      ...[0, 1, 2].flatMap((row) => [
        line(`left column line ${row + 1} of the text`, 60, 100 + row * 28, 320),
        line(`right column line ${row + 1} of the text`, 420, 100 + row * 28, 320),
      ]),
      ...gridLines(
        [
          ['Year', 'Sales', 'Profit'],
          ['2023', '120', '14'],
        ],
        300,
      ),
      line('left column after the table', 60, 420, 300),
      line('right column after the table', 420, 420, 300),
      line('and its second line here', 60, 448, 300),
      line('and its second line here', 420, 448, 300),
    ]);
    assert.deepEqual(
      analyseLayout(page).map((block) => `${block.label} ${block.content.split(' ').slice(0, 3).join(' ')}`),
      [
        'text left column line',
        'text right column line',
        'table <table><tr><td>Year</td><td>Sales</td><td>Profit</td></tr><tr><td>2023</td><td>120</td><td>14</td></tr></table>',
        'text left column after',
        'text right column after',
      ],
    );
  });
});
