import type { LayoutLabel } from './layout-parser.ts';

/** One element of a page, in reading order, as the Markdown needs it. */
export interface MarkdownElement {
  readonly label: LayoutLabel;
  /** Text, table HTML or formula (LaTeX or plain); ignored for images. */
  readonly content: string;
  /** 1 to 6 for a heading. */
  readonly headingLevel?: number;
  /** Where the image's crop is served; an image without one is left out. */
  readonly imageUrl?: string;
}

/**
 * The Markdown of one page's elements, in their order, separated by a blank line: a heading as
 * `#`×level and its text, a paragraph as its text, a table as its HTML (Markdown keeps HTML
 * blocks), a formula as a `$$` display block, an image as `![](url)`. Empty elements are left
 * out. A document's pages are joined by the caller, with a blank line between them.
 */
export function layoutMarkdown(elements: readonly MarkdownElement[]): string {
  return elements
    .map(elementMarkdown)
    .filter((block) => block !== '')
    .join('\n\n');
}

function elementMarkdown(element: MarkdownElement): string {
  if (element.label === 'image') return element.imageUrl === undefined || element.imageUrl === '' ? '' : `![](${element.imageUrl})`;
  const content = element.content.trim();
  if (content === '') return '';
  switch (element.label) {
    case 'table':
      return content;
    case 'formula':
      return `$$\n${content}\n$$`;
    case 'text': {
      const level = element.headingLevel;
      if (level === undefined) return content;
      return `${'#'.repeat(Math.min(6, Math.max(1, Math.round(level))))} ${content.replace(/\s*\n\s*/g, ' ')}`;
    }
  }
}
