import { layoutMarkdown } from '../ocr/layout-markdown.ts';
import type { LayoutParser } from '../ocr/layout-parser.ts';

/** The layout-parsing model that reads scans unless the config names another (it works with no configuration). */
export const defaultKnowledgeOcrModel = 'glm-ocr';

/**
 * The text of a PDF without a text layer (a scan) through layout parsing with `model` (the config's `knowledge.ocrModel`),
 * as the Markdown layout_parsing answers with; pictures left out (a knowledge base keeps text). The
 * parser's own limits apply (30 pages).
 */
export function scanTextReader(parser: LayoutParser, model: string) {
  return async (bytes: Uint8Array, signal: AbortSignal): Promise<string> => {
    const result = await parser.parse({ model, document: { bytes, format: 'pdf' }, needVisualization: false, signal });
    if (result.markdown !== undefined) return result.markdown;
    return result.pages.map((page) => layoutMarkdown(page.elements.filter((element) => element.label !== 'image'))).join('\n\n');
  };
}
