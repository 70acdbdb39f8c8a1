import { openPdfJsDocument } from '../pdf/pdfjs-document.ts';
import { normalizeTime } from './page-metadata.ts';

/** What the reader takes from a PDF: its text, page by page, and its document information. */
export interface PdfText {
  readonly title: string;
  readonly subject: string;
  readonly metadata: Record<string, string>;
  /** Text of each page, lines kept. */
  readonly pages: readonly string[];
  readonly publishedTime: string | undefined;
}

/** A PDF with more pages than its reader takes; the message names the limit. */
export class PdfPageLimitError extends Error {
  override readonly name = 'PdfPageLimitError';

  constructor(pageCount: number, maxPages: number) {
    super(`it has ${pageCount} pages; at most ${maxPages} are read from one PDF`);
  }
}

/**
 * The text layer of every page with pdf.js (no rendering, no OCR: image-only pages give no text).
 * Throws PdfPageLimitError, before reading any page, for a file of more than `maxPages` pages.
 */
export async function readPdfText(bytes: Uint8Array, maxPages = Number.POSITIVE_INFINITY): Promise<PdfText> {
  const document = await openPdfJsDocument(bytes);
  try {
    if (document.numPages > maxPages) throw new PdfPageLimitError(document.numPages, maxPages);
    const pages: string[] = [];
    for (let number = 1; number <= document.numPages; number += 1) {
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items) {
        if ('str' in item) text += item.str + (item.hasEOL ? '\n' : '');
      }
      pages.push(text.replace(/[ \t]+\n/g, '\n').trim());
      page.cleanup();
    }
    const info = ((await document.getMetadata()).info ?? {}) as Record<string, unknown>;
    const field = (name: string): string => (Object.hasOwn(info, name) && typeof info[name] === 'string' ? info[name].trim() : '');
    const metadata: Record<string, string> = {};
    for (const [name, key] of [
      ['Author', 'author'],
      ['Keywords', 'keywords'],
      ['Subject', 'description'],
      ['Creator', 'creator'],
      ['Producer', 'producer'],
    ] as const) {
      if (field(name) !== '') metadata[key] = field(name);
    }
    return {
      title: field('Title'),
      subject: field('Subject'),
      metadata,
      pages,
      publishedTime: pdfDate(field('CreationDate')),
    };
  } finally {
    await document.destroy();
  }
}

/** A PDF date (`D:20240305101500+01'00'`) as ISO 8601. */
function pdfDate(value: string): string | undefined {
  const match = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz]|[+-]\d{2}'?\d{2}'?)?/.exec(value);
  if (match === null) return undefined;
  const [, year, month = '01', day = '01', hour = '00', minute = '00', second = '00', zone] = match;
  const offset = zone === undefined || /z/i.test(zone) ? 'Z' : `${zone.slice(0, 3)}:${zone.replace(/'/g, '').slice(3, 5)}`;
  return normalizeTime(`${year}-${month}-${day}T${hour}:${minute}:${second}${offset}`);
}
