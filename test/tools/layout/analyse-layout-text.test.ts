import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyseLayout } from '../../../src/tools/layout/analyse-layout.ts';
import { describeBlocks, line, textPage } from './layout-fixtures.ts';

describe('analyseLayout: text, columns and reading order', () => {
  it('reads a single column as a title heading, paragraphs split by their gaps and a smaller heading', () => {
    const page = textPage([
      // Given bottom to top: order comes from the geometry, not the input order.
      line('of the year.', 100, 438, 120),
      line('Sales grew in every region, most', 100, 410, 600),
      line('Results', 100, 360, 140, 30),
      line('second paragraph ends here.', 100, 306, 280),
      line('continues the report with a', 100, 278, 600),
      line('The second paragraph then', 100, 250, 600),
      line('about the company this year.', 100, 196, 300),
      line('paragraph of the report tells', 100, 168, 600),
      line('This is the first opening', 100, 140, 600),
      line('Annual Report', 100, 60, 320, 40),
    ]);
    assert.deepEqual(describeBlocks(analyseLayout(page)), [
      'text:h1 Annual Report',
      'text This is the first opening paragraph of the report tells about the company this year.',
      'text The second paragraph then continues the report with a second paragraph ends here.',
      'text:h2 Results',
      'text Sales grew in every region, most of the year.',
    ]);
  });

  it('reads two columns left before right, between a full-width title and a full-width footer', () => {
    const page = textPage([
      line('A Study of Columns', 150, 50, 500, 36),
      line('Left column opens its first', 60, 120, 320),
      line('paragraph with these words', 60, 148, 320),
      line('and ends it here.', 60, 176, 170),
      line('Right column starts its own', 420, 120, 320),
      line('paragraph beside the left', 420, 148, 320),
      line('one and carries on for a', 420, 176, 320),
      line('fourth line too.', 420, 204, 160),
      line('A second left paragraph', 60, 230, 320),
      line('closes the left column.', 60, 258, 230),
      line('A second right paragraph', 420, 260, 320),
      line('closes the right column.', 420, 288, 240),
      line('The footer spans the whole page width below both columns and', 60, 900, 680),
      line('ends the page.', 60, 928, 140),
    ]);
    const blocks = analyseLayout(page);
    assert.deepEqual(describeBlocks(blocks), [
      'text:h1 A Study of Columns',
      'text Left column opens its first paragraph with these words and ends it here.',
      'text A second left paragraph closes the left column.',
      'text Right column starts its own paragraph beside the left one and carries on for a fourth line too.',
      'text A second right paragraph closes the right column.',
      'text The footer spans the whole page width below both columns and ends the page.',
    ]);
    assert.deepEqual(blocks[1]?.box, { x0: 60, y0: 120, x1: 380, y1: 196 });
  });

  it('reads columns whose lines do not line up (right column half a line lower)', () => {
    const left = [0, 1, 2, 3].map((row) => line(`left ${row + 1} of the first column`, 60, 100 + row * 40, 320));
    const right = [0, 1, 2, 3].map((row) => line(`right ${row + 1} of the second column`, 420, 120 + row * 40, 320));
    const blocks = analyseLayout(textPage([...left, ...right].sort((a, b) => a.box.y0 - b.box.y0)));
    assert.deepEqual(
      blocks.map((block) => block.content.split(' ').slice(0, 2).join(' ')),
      ['left 1', 'left 2', 'left 3', 'left 4', 'right 1', 'right 2', 'right 3', 'right 4'],
    );
  });

  it('reads three columns left to right', () => {
    const columns = [40, 300, 560];
    const lines = columns.flatMap((x, column) => [0, 1, 2].map((row) => line(`column ${column + 1} line ${row + 1} of text`, x, 100 + row * 28, 200)));
    const blocks = analyseLayout(textPage(lines.reverse()));
    assert.deepEqual(
      blocks.map((block) => block.content),
      [1, 2, 3].map((column) => [1, 2, 3].map((row) => `column ${column} line ${row} of text`).join(' ')),
    );
  });

  it('joins Chinese lines without spaces and keeps headings by size', () => {
    const page = textPage([
      line('版面分析', 100, 60, 160, 40),
      line('这是第一段的第一行文字，', 100, 140, 480),
      line('这是第一段的第二行。', 100, 168, 400),
      line('第二段只有一行。', 100, 230, 320),
    ]);
    assert.deepEqual(describeBlocks(analyseLayout(page)), ['text:h1 版面分析', 'text 这是第一段的第一行文字，这是第一段的第二行。', 'text 第二段只有一行。']);
  });

  it('labels a mostly mathematical line formula and prose with an equals sign text', () => {
    const page = textPage([
      line('Einstein wrote the relation between mass and energy:', 100, 100, 600),
      line('E = mc^2', 340, 160, 120),
      line('x² + y² ≤ r², α ≥ 0', 300, 220, 200),
      line('The value of the answer = 42 in this text.', 100, 280, 500),
    ]);
    assert.deepEqual(
      analyseLayout(page).map((block) => [block.label, block.content]),
      [
        ['text', 'Einstein wrote the relation between mass and energy:'],
        ['formula', 'E = mc^2'],
        ['formula', 'x² + y² ≤ r², α ≥ 0'],
        ['text', 'The value of the answer = 42 in this text.'],
      ],
    );
  });

  it('joins the fragments of a PDF text layer line and a hyphenated line end', () => {
    // A text layer splits a line at font changes: "This is " + bold "important" + " text".
    const page = textPage([
      line('This is', 100, 100, 60),
      line('important', 164, 100, 90),
      line('text that wraps with a hyphen-', 258, 100, 300),
      line('ated word and goes on.', 100, 128, 230),
      line('Next paragraph', 100, 190, 150),
      line('here.', 254, 190, 50),
    ]);
    assert.deepEqual(describeBlocks(analyseLayout(page)), [
      'text This is important text that wraps with a hyphenated word and goes on.',
      'text Next paragraph here.',
    ]);
  });

  it('returns no blocks for a page without lines or pictures', () => {
    assert.deepEqual(analyseLayout(textPage([])), []);
  });
});
