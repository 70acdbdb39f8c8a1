import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';

/**
 * The one place pdf.js is loaded and configured: the web reader's text extraction and the layout
 * parser's PDF input open documents the same way.
 */
export type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

const packageDir = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
/** pdf.js loads the 14 standard fonts from here; it wants a directory path ending in '/'. */
const standardFontDataUrl = `${join(packageDir, 'standard_fonts')}/`;
const cMapUrl = `${join(packageDir, 'cmaps')}/`;
/** JPEG 2000 and JBIG2 decoders (PDFs made by document scanners use both) and the colour management module. */
const wasmUrl = `${join(packageDir, 'wasm')}/`;
const iccUrl = `${join(packageDir, 'iccs')}/`;

let pdfjs: Promise<PdfJs> | undefined;

/** pdf.js, imported once on first use (the module is large and most requests never need it). */
export function loadPdfJs(): Promise<PdfJs> {
  pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  return pdfjs;
}

/**
 * A pdf.js document for these bytes. Throws pdf.js's own errors (InvalidPDFException,
 * PasswordException...); the caller destroys the document when done.
 */
export async function openPdfJsDocument(bytes: Uint8Array): Promise<PDFDocumentProxy> {
  const { getDocument } = await loadPdfJs();
  const loadingTask = getDocument({
    // pdf.js takes ownership of the buffer it is given; a copy leaves the caller's intact.
    data: new Uint8Array(bytes),
    standardFontDataUrl,
    cMapUrl,
    cMapPacked: true,
    wasmUrl,
    iccUrl,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  });
  try {
    return await loadingTask.promise;
  } catch (error) {
    // A failed load keeps its (in-process) worker until the task is destroyed.
    await loadingTask.destroy().catch(() => undefined);
    throw error;
  }
}
