import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { PdfPage } from './pdf-page.ts';
import { pdfUnreadable, PdfUnreadableError } from './pdf-unreadable-error.ts';
import { loadPdfJs, openPdfJsDocument, type PdfJs } from './pdfjs-document.ts';

export { PdfUnreadableError } from './pdf-unreadable-error.ts';

/**
 * An open PDF. Opening reads only the cross-reference table and the page count; pages are parsed
 * when asked for. Close it when done: that frees everything pdf.js holds for the document.
 */
export class PdfDocument {
  readonly pageCount: number;
  readonly #document: PDFDocumentProxy;
  readonly #pdfjs: PdfJs;
  #closed = false;

  constructor(document: PDFDocumentProxy, pdfjs: PdfJs) {
    this.pageCount = document.numPages;
    this.#document = document;
    this.#pdfjs = pdfjs;
  }

  /** Page `number` (1-based); a damaged page throws PdfUnreadableError naming it. */
  async page(number: number): Promise<PdfPage> {
    if (this.#closed) throw new Error('the PDF document is closed');
    if (!Number.isInteger(number) || number < 1 || number > this.pageCount) {
      throw new RangeError(`page ${number} does not exist: the PDF has ${this.pageCount} page${this.pageCount === 1 ? '' : 's'}`);
    }
    let page;
    try {
      page = await this.#document.getPage(number);
    } catch (error) {
      throw pdfUnreadable(error, `page ${number}`);
    }
    return PdfPage.load(page, this.#pdfjs);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#document.destroy();
  }
}

/**
 * Opens a PDF. Bytes that are not a PDF, a damaged or truncated file, one protected by a password
 * and one without pages all throw PdfUnreadableError ("the PDF cannot be read: ...").
 */
export async function openPdf(bytes: Uint8Array): Promise<PdfDocument> {
  const pdfjs = await loadPdfJs();
  let document;
  try {
    document = await openPdfJsDocument(bytes);
  } catch (error) {
    throw pdfUnreadable(error);
  }
  if (document.numPages < 1) {
    await document.destroy();
    throw new PdfUnreadableError('it has no pages');
  }
  return new PdfDocument(document, pdfjs);
}
