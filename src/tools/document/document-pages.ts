import { invalidField } from '../../core/errors/api-error.ts';
import type { DocumentFormat } from '../../core/ocr/layout-parser.ts';
import type { PageContent, RasterImage, TextLine } from '../layout/page-content.ts';
import { openPdf, PdfUnreadableError } from '../pdf/pdf-document.ts';
import { pdfInflatedBytes } from '../pdf/pdf-inflation.ts';
import { decodeImage } from '../raster/decode-image.ts';

/** Most PDF pages parsed in one request (the platform's limit, after start_page_id / end_page_id). */
const maxParsedPages = 30;

/**
 * What a parsed PDF's compressed streams may inflate to, all together, counted before pdf.js opens
 * it: pdf.js keeps what it inflates (page contents, fonts, pictures drawn for rendering) in memory
 * outside the JavaScript heap.
 */
const maxParsedPdfInflatedBytes = 512 * 1024 * 1024;

/**
 * PDF pages are rendered at 2× their point size (144 dpi): an A4 page becomes 1190×1684 pixels,
 * enough for PaddleOCR's detector to see body text, and the size text-layer coordinates use too.
 */
const pdfScale = 2;

/** Reads the text of a raster (PaddleOCR): lines in the raster's pixel coordinates. */
export type TextRecogniser = (raster: RasterImage, signal: AbortSignal) => Promise<readonly TextLine[]>;

export interface PageRange {
  readonly startPage?: number;
  readonly endPage?: number;
}

type DocumentPage = PageContent & { readonly raster: RasterImage };

/**
 * The pages of a document as the layout analysis takes them, in order: an image is one page
 * (decoded and recognised); a PDF page keeps its text layer where it has one (its pictures from the
 * drawing operators) and is rendered and recognised where it has none (a scan). Up to
 * `pagesInFlight` pages without a text layer are recognised at once (the recogniser's
 * parallelism), the next ones rendered while earlier ones are read.
 */
export async function* documentPages(
  document: { readonly bytes: Uint8Array; readonly format: DocumentFormat },
  range: PageRange,
  recognise: TextRecogniser,
  signal: AbortSignal,
  pagesInFlight = 1,
): AsyncGenerator<DocumentPage> {
  if (document.format !== 'pdf') {
    const raster = await decodeRaster(document.bytes, document.format);
    yield { width: raster.width, height: raster.height, lines: await recognise(raster, signal), pictures: [], raster };
    return;
  }
  try {
    yield* pdfPages(document.bytes, range, recognise, signal, pagesInFlight);
  } catch (error) {
    // A damaged file shows when it is opened, or only when one of its pages is read or drawn.
    if (error instanceof PdfUnreadableError) throw invalidField('file', error.message);
    throw error;
  }
}

async function* pdfPages(
  bytes: Uint8Array,
  range: PageRange,
  recognise: TextRecogniser,
  signal: AbortSignal,
  pagesInFlight: number,
): AsyncGenerator<DocumentPage> {
  if ((await pdfInflatedBytes(bytes, maxParsedPdfInflatedBytes)) === undefined) {
    const megabytes = maxParsedPdfInflatedBytes / 1024 / 1024;
    throw invalidField(
      'file',
      `the PDF's compressed streams inflate to more than ${megabytes} MB; a parsed PDF may inflate to at most ${megabytes} MB: split it`,
    );
  }
  const pdf = await openPdf(bytes);
  // Pages read ahead are stopped when the reader stops early (an error, or it returns).
  const stop = new AbortController();
  const reading = AbortSignal.any([signal, stop.signal]);
  const ahead: Promise<DocumentPage>[] = [];
  try {
    const [first, last] = pageSpan(pdf.pageCount, range);
    for (let number = first; number <= last; number++) {
      signal.throwIfAborted();
      const page = await pdf.page(number);
      const raster = await page.render(pdfScale);
      const content: Promise<DocumentPage> = page.hasTextLayer()
        ? Promise.resolve({ width: raster.width, height: raster.height, lines: page.textLines(pdfScale), pictures: await page.pictures(pdfScale), raster })
        : recognise(raster, reading).then((lines) => ({ width: raster.width, height: raster.height, lines, pictures: [], raster }));
      // Its failure is reported when its turn comes; until then it must not count as unhandled.
      content.catch(() => undefined);
      ahead.push(content);
      if (ahead.length >= pagesInFlight) yield await (ahead.shift() as Promise<DocumentPage>);
    }
    while (ahead.length > 0) yield await (ahead.shift() as Promise<DocumentPage>);
  } finally {
    stop.abort();
    await Promise.allSettled(ahead);
    await pdf.close();
  }
}

/** The 1-based page numbers to parse; the range must lie in the document and hold at most 30 pages. */
function pageSpan(pageCount: number, range: PageRange): readonly [number, number] {
  const first = range.startPage ?? 1;
  if (first > pageCount) throw invalidField('start_page_id', `is ${first} but the PDF has ${pageCount} page${pageCount === 1 ? '' : 's'}`);
  const last = Math.min(range.endPage ?? pageCount, pageCount);
  const count = last - first + 1;
  if (count > maxParsedPages) {
    throw invalidField(
      'file',
      `the PDF has ${count} pages to parse; at most ${maxParsedPages} are parsed in one request (choose them with start_page_id and end_page_id)`,
    );
  }
  return [first, last];
}

async function decodeRaster(bytes: Uint8Array, format: DocumentFormat): Promise<RasterImage> {
  try {
    return await decodeImage(bytes);
  } catch (error) {
    throw invalidField('file', `is not a readable ${format.toUpperCase()} image (${(error as Error).message})`);
  }
}
