import { createCanvas } from '@napi-rs/canvas';
import type { LayoutBlock } from '../../../src/tools/layout/analyse-layout.ts';
import type { Box, PageContent, TextLine } from '../../../src/tools/layout/page-content.ts';
import { decodeImage } from '../../../src/tools/raster/decode-image.ts';
import { renderPagePng, type PageSpec, type TextItem } from '../../helpers/rendered-documents.ts';

/** A recognised line at x, y (top left), width × height page pixels. */
export function line(text: string, x: number, y: number, width: number, height = 20): TextLine {
  return { text, box: { x0: x, y0: y, x1: x + width, y1: y + height }, confidence: 1 };
}

export function box(x0: number, y0: number, x1: number, y1: number): Box {
  return { x0, y0, x1, y1 };
}

export function textPage(lines: readonly TextLine[], pictures: readonly Box[] = [], size = { width: 800, height: 1000 }): PageContent {
  return { ...size, lines, pictures };
}

/** The blocks as `label[:hN] content` lines, for whole-order comparisons. */
export function describeBlocks(blocks: readonly LayoutBlock[]): string[] {
  return blocks.map((block) => `${block.label}${block.headingLevel === undefined ? '' : `:h${block.headingLevel}`} ${block.content}`);
}

const families = { sans: 'DejaVu Sans', serif: 'DejaVu Serif', cjk: 'WenQuanYi Micro Hei' } as const;

/**
 * A page rendered to pixels (renderPagePng, decoded) with its text lines where a recogniser would
 * report them: each text item's box as the font measures it, one line per item.
 */
export async function renderedPage(spec: PageSpec, pictures: readonly Box[] = []): Promise<PageContent> {
  const raster = await decodeImage(await renderPagePng(spec));
  // renderPagePng has registered the CJK font; the measures below use the same families.
  const context = createCanvas(1, 1).getContext('2d');
  const lines = spec.items
    .filter((item): item is TextItem => 'text' in item)
    .map((item) => {
      context.font = `${item.bold === true ? 'bold ' : ''}${item.size}px "${families[item.font ?? 'sans']}"`;
      return line(item.text, item.x, item.y, context.measureText(item.text).width, item.size * 1.2);
    });
  return { width: spec.width, height: spec.height, lines, pictures, raster };
}

/** Whether two boxes agree within `tolerance` pixels on every edge. */
export function nearlyEqual(actual: Box, expected: Box, tolerance: number): boolean {
  return (
    Math.abs(actual.x0 - expected.x0) <= tolerance &&
    Math.abs(actual.y0 - expected.y0) <= tolerance &&
    Math.abs(actual.x1 - expected.x1) <= tolerance &&
    Math.abs(actual.y1 - expected.y1) <= tolerance
  );
}
