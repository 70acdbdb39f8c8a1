import { layoutMarkdown } from '../ocr/layout-markdown.ts';
import type { LayoutParser } from '../ocr/layout-parser.ts';

/**
 * The text of a scanned PDF through layout parsing (the platform's OCR model, `glm-ocr` by
 * default), as the Markdown layout_parsing answers with; pictures left out (a knowledge base
 * keeps text). The parser's own limits apply (30 pages).
 */
export function scanTextReader(parser: LayoutParser, model: string) {
  return async (bytes: Uint8Array, signal: AbortSignal): Promise<string> => {
    const result = await parser.parse({ model, document: { bytes, format: 'pdf' }, needVisualization: false, signal });
    if (result.markdown !== undefined) return result.markdown;
    return result.pages.map((page) => layoutMarkdown(page.elements.filter((element) => element.label !== 'image'))).join('\n\n');
  };
}
