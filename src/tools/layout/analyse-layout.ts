import type { LayoutLabel } from '../../core/ocr/layout-parser.ts';
import { boxHeight, fractionInside, median } from './box-geometry.ts';
import { headingLevels, isFormulaText } from './block-labels.ts';
import { findPictures } from './find-pictures.ts';
import { findTables, type TableRegion } from './find-tables.ts';
import { groupParagraphs, paragraphLineHeight, type Paragraph } from './group-paragraphs.ts';
import type { Box, PageContent, TextLine } from './page-content.ts';
import { readingOrder } from './reading-order.ts';

/** One block of a page's layout, in page pixels. */
export interface LayoutBlock {
  readonly label: LayoutLabel;
  readonly box: Box;
  /** Paragraph text, table HTML or formula text; empty for an image. */
  readonly content: string;
  /** 1 to 6 for a text block recognised as a heading (1 the largest). */
  readonly headingLevel?: number;
}

type PageItem =
  | { readonly kind: 'line'; readonly box: Box; readonly line: TextLine }
  | { readonly kind: 'table'; readonly box: Box; readonly table: TableRegion }
  | { readonly kind: 'picture'; readonly box: Box };

type Draft =
  | { readonly kind: 'paragraph'; readonly paragraph: Paragraph }
  | { readonly kind: 'table'; readonly table: TableRegion }
  | { readonly kind: 'picture'; readonly box: Box };

/**
 * The layout of a page: its recognised lines (OCR or a PDF text layer) and pictures turned into
 * blocks in reading order, each labelled text, table, formula or image.
 *
 * 1. Pictures: the known ones and the graphics found on the raster (see findPictures); lines
 *    lying mostly inside a picture are part of it.
 * 2. Tables: aligned rows of separate boxes, rebuilt as HTML (see findTables).
 * 3. Reading order: columns found by their gutters, bands cut by the items that span them
 *    (see readingOrder); within a column, lines grouped into paragraphs (see groupParagraphs).
 * 4. Labels: formula for mostly-mathematical text, headings by line height, text otherwise.
 */
export function analyseLayout(page: PageContent): LayoutBlock[] {
  const pictures = findPictures(page);
  const lines = page.lines.filter((line) => line.text.trim() !== '' && !pictures.some((picture) => fractionInside(line.box, picture) >= 0.5));
  const lineHeight = median(lines.map((line) => boxHeight(line.box))) || page.height / 50;
  const { tables, rest } = findTables(lines, { minCellGap: 0.5 * lineHeight });
  const items: PageItem[] = [
    ...rest.map((line) => ({ kind: 'line' as const, box: line.box, line })),
    ...tables.map((table) => ({ kind: 'table' as const, box: table.box, table })),
    ...pictures.map((box) => ({ kind: 'picture' as const, box })),
  ];
  const drafts = readingOrder(items, 0.8 * lineHeight).flatMap(leafDrafts);
  const paragraphs = drafts.flatMap((draft) => (draft.kind === 'paragraph' ? [draft.paragraph] : []));
  const bodyLineHeight = median(paragraphs.flatMap((paragraph) => paragraph.rowHeights));
  const formulas = new Set(paragraphs.filter((paragraph) => isFormulaText(paragraph.text)));
  const prose = paragraphs.filter((paragraph) => !formulas.has(paragraph));
  const levels = headingLevels(
    prose.map((paragraph) => ({ lineHeight: paragraphLineHeight(paragraph), rowCount: paragraph.rowHeights.length, text: paragraph.text })),
    bodyLineHeight,
  );
  const headingOf = new Map(prose.map((paragraph, index) => [paragraph, levels[index]]));
  return drafts.map((draft): LayoutBlock => {
    if (draft.kind === 'picture') return { label: 'image', box: draft.box, content: '' };
    if (draft.kind === 'table') return { label: 'table', box: draft.table.box, content: draft.table.html };
    const { paragraph } = draft;
    if (formulas.has(paragraph)) return { label: 'formula', box: paragraph.box, content: paragraph.text };
    const level = headingOf.get(paragraph);
    return { label: 'text', box: paragraph.box, content: paragraph.text, ...(level === undefined ? {} : { headingLevel: level }) };
  });
}

/** The drafts of one column run: consecutive lines as paragraphs, tables and pictures as they come. */
function leafDrafts(leaf: readonly PageItem[]): Draft[] {
  const drafts: Draft[] = [];
  let lines: TextLine[] = [];
  const flush = () => {
    for (const paragraph of groupParagraphs(lines)) drafts.push({ kind: 'paragraph', paragraph });
    lines = [];
  };
  for (const item of leaf) {
    if (item.kind === 'line') {
      lines.push(item.line);
      continue;
    }
    flush();
    drafts.push(item.kind === 'table' ? { kind: 'table', table: item.table } : { kind: 'picture', box: item.box });
  }
  flush();
  return drafts;
}
