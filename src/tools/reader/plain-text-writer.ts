import { elementNode, textNode, type DomElement, type DomNode } from './dom-types.ts';

const blockElements = new Set([
  'ADDRESS',
  'ARTICLE',
  'ASIDE',
  'BLOCKQUOTE',
  'CAPTION',
  'DD',
  'DETAILS',
  'DIV',
  'DL',
  'DT',
  'FIELDSET',
  'FIGCAPTION',
  'FIGURE',
  'FOOTER',
  'FORM',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HEADER',
  'HR',
  'MAIN',
  'NAV',
  'OL',
  'P',
  'SECTION',
  'SUMMARY',
  'TABLE',
  'UL',
]);
const skippedElements = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'IMG', 'PICTURE', 'SVG', 'VIDEO', 'AUDIO', 'IFRAME']);

/** Preformatted text travels between these private-use marks, so the tidy-up leaves it alone. */
const preStart = '\uE000';
const preEnd = '\uE001';

/**
 * The content as plain text (`return_format: text`), roughly what a browser's innerText gives:
 * blocks separated by a blank line, table cells by a tab, `<br>` a line break, list items with
 * "- ", whitespace kept inside `<pre>` and collapsed elsewhere; images are left out.
 */
export function writePlainText(root: DomElement): string {
  const parts: string[] = [];
  walk(root, parts);
  return parts
    .join('')
    .split(new RegExp(`[${preStart}${preEnd}]`))
    .map((chunk, index) => (index % 2 === 1 ? chunk : tidyLines(chunk)))
    .join('')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function walk(node: DomNode, parts: string[]): void {
  for (const child of Array.from(node.childNodes)) {
    if (child.nodeType === textNode) {
      parts.push((child.textContent ?? '').replace(/[\s\uE000\uE001]+/g, ' '));
      continue;
    }
    if (child.nodeType !== elementNode || skippedElements.has(child.nodeName)) continue;
    const name = child.nodeName;
    if (name === 'BR') parts.push('\n');
    else if (name === 'PRE') parts.push('\n\n', preStart, (child.textContent ?? '').replace(/[\uE000\uE001]/g, ''), preEnd, '\n\n');
    else {
      const block = blockElements.has(name);
      if (block) parts.push('\n\n');
      if (name === 'TR') parts.push('\n');
      if (name === 'LI') parts.push('\n- ');
      walk(child, parts);
      if (name === 'TD' || name === 'TH') parts.push('\t');
      if (block) parts.push('\n\n');
    }
  }
}

/** Spaces around line breaks and cell tabs go, as do doubled spaces (where an image was) and the last cell's tab. */
function tidyLines(text: string): string {
  return text
    .split('\n')
    .map((line) =>
      line
        .split('\t')
        .map((cell) => cell.replace(/ {2,}/g, ' ').trim())
        .join('\t')
        .replace(/\t+$/, ''),
    )
    .join('\n');
}
