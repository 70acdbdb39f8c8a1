import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { layoutMarkdown } from '../../../src/core/ocr/layout-markdown.ts';

describe('layoutMarkdown', () => {
  it('writes headings, paragraphs, tables, formulas and linked images in order, a blank line apart', () => {
    const markdown = layoutMarkdown([
      { label: 'text', content: 'Annual Report', headingLevel: 1 },
      { label: 'text', content: 'Sales grew in every region.' },
      { label: 'table', content: '<table><tr><td>Year</td><td>Sales</td></tr></table>' },
      { label: 'formula', content: 'E = mc^2' },
      { label: 'image', content: '', imageUrl: 'https://platform.test/blobs/page-1-image-5.png' },
      { label: 'image', content: '' },
      { label: 'text', content: '   ' },
      { label: 'text', content: 'Outlook', headingLevel: 2 },
    ]);
    assert.equal(
      markdown,
      '# Annual Report\n\nSales grew in every region.\n\n<table><tr><td>Year</td><td>Sales</td></tr></table>\n\n' +
        '$$\nE = mc^2\n$$\n\n![](https://platform.test/blobs/page-1-image-5.png)\n\n## Outlook',
    );
  });

  it('is empty for a page without content', () => {
    assert.equal(layoutMarkdown([]), '');
    assert.equal(layoutMarkdown([{ label: 'image', content: '' }]), '');
  });
});
