import { invalidField } from '../../core/errors/api-error.ts';
import type { ModelEntry } from '../../core/config/config.schema.ts';
import { platformModels } from '../../core/models/platform-models.ts';
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
 * platform's own examples send GLM-OCR, platform-facts §1.3).
 */
export function layoutModelName(model: string, catalog: Readonly<Record<string, ModelEntry>> = {}): string {
  if (catalog[model] !== undefined) return model;
  const lowerCase = model.toLowerCase();
  return platformModels.layout.includes(lowerCase) ? lowerCase : model;
}

function checkFile(file: string): void {
  if (/^https?:\/\//i.test(file)) {
    if (!URL.canParse(file)) throw invalidField('file', fileRule);
    return;
  }
  // Inline content: a data URL's payload or bare base64; both must decode.
  const dataUrl = /^data:[^,]*;base64,/i.exec(file);
  const base64 = compactBase64(dataUrl === null ? file : file.slice(dataUrl[0].length));
  if (base64 === undefined) throw invalidField('file', fileRule);
  checkInlineDocument(base64);
}

/**
 * The base64 text without line breaks (MIME encoders wrap lines), or undefined when it is not
 * base64: standard or URL-safe alphabet, padded or not.
 */
function compactBase64(text: string): string | undefined {
  const compact = /\s/.test(text) ? text.replace(/\s+/g, '') : text;
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(compact)) return undefined;
  const valid = compact.endsWith('=') ? compact.length % 4 === 0 : compact.length % 4 !== 1;
  return valid ? compact : undefined;
}

/** Inline content is checked for format and size here; a URL's content can only be checked once fetched. */
function checkInlineDocument(base64: string): void {
  const format = documentFormat(Buffer.from(base64.slice(0, 16), 'base64'));
  if (format === undefined) throw invalidField('file', 'must be a JPG, PNG or PDF document');
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  const bytes = Math.floor(((base64.length - padding) * 3) / 4);
  const limit = format === 'pdf' ? maxPdfBytes : maxImageBytes;
  if (bytes > limit) {
    throw invalidField('file', `a ${format.toUpperCase()} document must be at most ${limit / 1024 / 1024} MB`);
  }
}

function documentFormat(head: Buffer): 'pdf' | 'png' | 'jpg' | undefined {
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  if (head.subarray(0, 8).equals(pngSignature)) return 'png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpg';
  return undefined;
}
