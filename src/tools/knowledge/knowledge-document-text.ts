import { extname } from 'node:path';
import { ApiError, invalidField } from '../../core/errors/api-error.ts';
import type { HtmlArticle } from '../reader/html-article.ts';
import type { DocumentReaders } from './document-readers.ts';
import { extractHtmlArticleInThread } from './html-article-thread.ts';
import { readPdfPagesInThread } from './pdf-text-thread.ts';

/** Reads the text of a PDF that has no text layer (a scan), by the layout parser's OCR. */
type ScanReader = (bytes: Uint8Array, signal: AbortSignal) => Promise<string>;

/** How a knowledge file's text is read beyond plain text. */
export interface KnowledgeReading {
  readonly readScan: ScanReader;
  /** Longest reading one HTML page's article or one PDF's text layer may take (each in a thread of its own). */
  readonly readTimeoutMs: number;
  /** The server's document reader threads, shared by every upload. */
  readonly readers: DocumentReaders;
}

/** Default of `knowledge.readTimeoutMs`: far more than the files under the caps below take. */
export const defaultKnowledgeReadTimeoutMs = 120_000;

/** The most of each kind of knowledge file parsed: HTML is parsed in one step (a DOM of the whole page), PDFs page by page. */
const maxKnowledgeHtmlBytes = 5 * 1024 * 1024;
const maxKnowledgePdfBytes = 50 * 1024 * 1024;
const maxKnowledgeTextBytes = 10 * 1024 * 1024;
/** Text one knowledge file may hold, in characters (about 3,300 passages of the default size). */
const maxKnowledgeCharacters = 1_000_000;
/**
 * What a PDF's compressed streams may inflate to, all together: pdf.js keeps what it inflates
 * outside the reader thread's heap. Far above what text, fonts and pictures of a 50 MB PDF need.
 */
const maxKnowledgePdfInflatedBytes = 256 * 1024 * 1024;
/** Pages read from one PDF (each one's text parsed by pdf.js). */
const maxKnowledgePdfPages = 2000;
/**
 * Elements of one HTML page: the DOM and Readability's passes over it grow with them. A long
 * article has a few thousand; the largest real pages tens of thousands.
 */
export const maxKnowledgeHtmlElements = 100_000;

const htmlExtensions = new Set(['.html', '.htm', '.xhtml']);
/** Office documents: zip containers this platform has no maintained library to read. */
const officeExtensions = new Set(['.docx', '.doc', '.odt', '.rtf', '.xlsx', '.xls', '.pptx', '.ppt']);
const readableKinds = 'plain text, Markdown, HTML and PDF files can; save the document as PDF or HTML and upload that';

/**
 * The text of a file uploaded to a knowledge base: plain text and Markdown as written (UTF-8),
 * HTML through the web reader's extraction (Readability: the main content, without navigation
 * and scripts), PDF from its text layer (pdf.js), or through `readScan` (OCR) when it is a scan.
 * Anything else, a file over its kind's cap, or one whose reading passes its time or memory
 * limit, is refused as 1214; HTML and PDF wait for one of the server's readers (1305 when none
 * comes free in time).
 */
export async function readKnowledgeText(
  file: { readonly bytes: Buffer; readonly filename: string; readonly contentType: string; readonly ownerKeyId: string },
  reading: KnowledgeReading,
  signal: AbortSignal,
): Promise<string> {
  const extension = extname(file.filename).toLowerCase();
  const head = file.bytes.subarray(0, 1024).toString('latin1');
  let text: string;
  if (head.startsWith('%PDF-')) text = await pdfText(file.bytes, file.ownerKeyId, reading, signal);
  else if (head.startsWith('PK\x03\x04') || head.startsWith('\xd0\xcf\x11\xe0') || officeExtensions.has(extension)) {
    throw invalidField('file', `'${extension || 'office'}' documents cannot be added to a knowledge base; ${readableKinds}`);
  } else if (htmlExtensions.has(extension) || file.contentType === 'text/html' || /^\s*(<!doctype html|<html[\s>])/i.test(head)) {
    text = await htmlText(decodeText(file.bytes, maxKnowledgeHtmlBytes, 'HTML'), file.ownerKeyId, reading, signal);
  } else text = decodeText(file.bytes, maxKnowledgeTextBytes, 'text');
  if (text.trim() === '') throw invalidField('file', 'has no text to add to a knowledge base');
  if (text.length > maxKnowledgeCharacters) {
    throw invalidField('file', `holds ${text.length} characters of text; a knowledge base file may hold at most ${maxKnowledgeCharacters}: split it`);
  }
  return text;
}

/** UTF-8 text (a leading byte-order mark dropped); a file that is not is not text. */
function decodeText(bytes: Buffer, maxBytes: number, kind: string): string {
  if (bytes.byteLength > maxBytes) throw invalidField('file', `a ${kind} file for a knowledge base may be at most ${maxBytes / 1024 / 1024} MB`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw invalidField('file', `is not UTF-8 text; ${readableKinds}`);
  }
  if (text.includes('\u0000')) throw invalidField('file', `is binary, not text; ${readableKinds}`);
  return text;
}

/** The page's article (no navigation, footers or sidebars), read in a thread of its own: Readability takes seconds on a large page. */
async function htmlText(html: string, caller: string, reading: KnowledgeReading, signal: AbortSignal): Promise<string> {
  const elements = countElements(html, maxKnowledgeHtmlElements);
  if (elements > maxKnowledgeHtmlElements) {
    throw invalidField(
      'file',
      `the HTML has more than ${maxKnowledgeHtmlElements} elements; a knowledge base page may have at most ${maxKnowledgeHtmlElements}: split it`,
    );
  }
  let article: HtmlArticle | undefined;
  try {
    article = await reading.readers.read(caller, signal, () => extractHtmlArticleInThread(html, 'https://knowledge.invalid/', reading.readTimeoutMs, signal));
  } catch (error) {
    signal.throwIfAborted();
    if (error instanceof ApiError) throw error;
    // The extraction's refusal (elements nested too deep) or its time limit, said to the uploader.
    throw invalidField('file', `cannot be read as HTML: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (article === undefined) throw invalidField('file', 'has no readable text in its HTML');
  return article.title !== '' && !article.text.startsWith(article.title) ? `${article.title}\n\n${article.text}` : article.text;
}

/** Start tags in `html` (a `<` and a letter), counted up to just past `limit`: cheap beside building the DOM. */
function countElements(html: string, limit: number): number {
  let count = 0;
  const startTag = /<[A-Za-z]/g;
  while (count <= limit && startTag.exec(html) !== null) count += 1;
  return count;
}

/** The PDF's text layer, read in a thread of its own within the inflation and page caps; a scan (no text layer) through `readScan`. */
async function pdfText(bytes: Buffer, caller: string, reading: KnowledgeReading, signal: AbortSignal): Promise<string> {
  if (bytes.byteLength > maxKnowledgePdfBytes) throw invalidField('file', `a PDF for a knowledge base may be at most ${maxKnowledgePdfBytes / 1024 / 1024} MB`);
  let read;
  try {
    const request = { bytes, maxInflatedBytes: maxKnowledgePdfInflatedBytes, maxPages: maxKnowledgePdfPages };
    read = await reading.readers.read(caller, signal, () => readPdfPagesInThread(request, reading.readTimeoutMs, signal));
  } catch (error) {
    signal.throwIfAborted();
    if (error instanceof ApiError) throw error;
    // Its time or memory limit, said to the uploader.
    throw invalidField('file', `the PDF cannot be read within the platform's limits: ${error instanceof Error ? error.message : String(error)}; split it`);
  }
  if ('unreadable' in read) throw invalidField('file', read.unreadable);
  if ('overLimit' in read) throw invalidField('file', `the PDF cannot be read within the platform's limits: ${read.overLimit}; split it`);
  const text = read.pages.filter((page) => page !== '').join('\n\n');
  if (text !== '') return text;
  return reading.readScan(bytes, signal);
}
