import { invalidField } from '../../core/errors/api-error.ts';
import type { CatalogEntry } from '../../core/config/config.schema.ts';
import type { DocumentFormat } from '../../core/ocr/layout-parser.ts';
import { platformModels } from '../../core/models/platform-models.ts';
import { inlineHead, parseInlineData, type InlineData } from '../../core/media/inline-data.ts';
import { maxImageBytes, maxPdfBytes, type LayoutParsingRequest } from './layout-parsing.schema.ts';

const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const fileRule = 'must be an http or https URL, a data URL, or base64 content';

/** The layout parsing rules JSON Schema cannot state: the file's form, format and size, and the page range. */
export function checkLayoutParsingRequest(body: LayoutParsingRequest): void {
  checkFile(body.file);
  if (body.start_page_id !== undefined && body.end_page_id !== undefined && body.end_page_id < body.start_page_id) {
    throw invalidField('end_page_id', `must be >= start_page_id (${body.start_page_id})`);
  }
}

/**
 * The name to resolve: a catalog model exactly as given, a platform model in any letter case (the
 * platform's own examples send GLM-OCR, docs/wire.md §1.3).
 */
export function layoutModelName(model: string, catalog: Readonly<Record<string, CatalogEntry>> = {}): string {
  if (Object.hasOwn(catalog, model)) return model;
  const lowerCase = model.toLowerCase();
  return platformModels.layout.includes(lowerCase) ? lowerCase : model;
}

function checkFile(file: string): void {
  if (/^https?:\/\//i.test(file)) {
    if (!URL.canParse(file)) throw invalidField('file', fileRule);
    return;
  }
  const inline = parseInlineData(file);
  if (inline === undefined) throw invalidField('file', fileRule);
  checkInlineDocument(inline);
}

/** Inline content is checked for format and size here; a URL's content can only be checked once fetched. */
function checkInlineDocument(inline: InlineData): void {
  checkDocument(inlineHead(inline), inline.decodedBytes);
}

/** The format of a document by its first bytes, and its size within that format's limit. */
export function checkDocument(head: Uint8Array, bytes: number): DocumentFormat {
  const format = documentFormat(head);
  if (format === undefined) throw invalidField('file', 'must be a JPG, PNG or PDF document');
  const limit = format === 'pdf' ? maxPdfBytes : maxImageBytes;
  if (bytes > limit) {
    throw invalidField('file', `a ${format.toUpperCase()} document must be at most ${limit / 1024 / 1024} MB`);
  }
  return format;
}

/** The document's format by its signature, whatever its name or a server's content type claims. */
function documentFormat(head: Uint8Array): DocumentFormat | undefined {
  if (Buffer.from(head.subarray(0, 5)).toString('latin1') === '%PDF-') return 'pdf';
  if (Buffer.from(head.subarray(0, 8)).equals(pngSignature)) return 'png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpg';
  return undefined;
}
