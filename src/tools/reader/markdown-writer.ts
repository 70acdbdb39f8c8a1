import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { gfm } from 'turndown-plugin-gfm';
import type { DomElement } from './dom-types.ts';

/**
 * Markdown of extracted content with turndown: ATX headings, fenced code (the `language-x` class
 * of a `<code>` becomes the fence's info string), `-` bullets; with GitHub Flavored Markdown
 * (tables, strikethrough, task lists) unless `no_gfm`. The element is converted as it is, not
 * serialized and parsed again, which saves a second HTML parse of the whole article.
 */
export class MarkdownWriter {
  readonly #withGfm: TurndownService;
  readonly #plain: TurndownService;

  constructor() {
    addTableRows();
    this.#withGfm = createService(true);
    this.#plain = createService(false);
  }

  /** Markdown of `root`; with GFM, the tables under `root` are first made ready for the plugin (in place). */
  write(root: DomElement, options: { gfm: boolean }): string {
    if (options.gfm) prepareTables(root);
    const service = options.gfm ? this.#withGfm : this.#plain;
    return tidy(service.turndown(root as unknown as TurndownService.Node));
  }
}

function createService(withGfm: boolean): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
    hr: '---',
  });
  if (withGfm) service.use(gfm);
  // Nothing of these is text a reader wants.
  service.remove(['script', 'style', 'noscript', 'template', 'iframe', 'button', 'select', 'textarea']);
  return service;
}

/**
 * turndown-plugin-gfm writes a pipe table only when the first row is a heading row and keeps any
 * other table as raw HTML; legacy pages mark their header cells as <td>. The first row of such a
 * table becomes its heading row. A table without rows (which the plugin cannot handle) goes.
 */
function prepareTables(root: DomElement): void {
  for (const table of Array.from(root.querySelectorAll('table'))) {
    const rows = (table as DomElement & { rows?: DomElement[] }).rows ?? [];
    const first = rows[0];
    if (first === undefined) {
      table.remove();
      continue;
    }
    if (first.parentNode?.nodeName === 'THEAD') continue;
    for (const cell of Array.from(first.children)) {
      if (cell.nodeName !== 'TD') continue;
      const heading = table.ownerDocument.createElement('th');
      heading.innerHTML = cell.innerHTML;
      cell.replaceWith(heading);
    }
  }
}

/** At most one blank line between blocks, no trailing spaces at the ends. */
function tidy(markdown: string): string {
  return markdown.replace(/\n{3,}/g, '\n\n').trim();
}

let tableRowsAdded = false;

/**
 * turndown-plugin-gfm reads `table.rows`, which linkedom does not implement; without it every
 * table throws. The getter is added once to linkedom's element prototype (only linkedom
 * documents see it) and answers for TABLE elements only: the rows of the table itself, not of
 * tables nested in its cells.
 */
function addTableRows(): void {
  if (tableRowsAdded) return;
  tableRowsAdded = true;
  const { document } = parseHTML('<table></table>');
  const prototype = Object.getPrototypeOf(document.querySelector('table')) as object;
  if ('rows' in prototype) return;
  Object.defineProperty(prototype, 'rows', {
    configurable: true,
    get(this: DomElement): DomElement[] | undefined {
      if (this.nodeName !== 'TABLE') return undefined;
      const rows: DomElement[] = [];
      for (const child of Array.from(this.children)) {
        if (child.nodeName === 'TR') rows.push(child);
        else if (/^T(HEAD|BODY|FOOT)$/.test(child.nodeName)) {
          for (const row of Array.from(child.children)) if (row.nodeName === 'TR') rows.push(row);
        }
      }
      return rows;
    },
  });
}
