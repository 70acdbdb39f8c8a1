import { runInThread, type ThreadLimits } from '../../core/threads/one-shot-thread.ts';

/**
 * The text of each page; why pdf.js cannot read the file (damaged, protected); or which of the
 * reading limits the file passes. Both in words for its sender.
 */
export type PdfPagesReply = { readonly pages: readonly string[] } | { readonly unreadable: string } | { readonly overLimit: string };

/** What the thread is given: the file and the limits it is read within. */
export interface PdfPagesRequest {
  readonly bytes: Uint8Array;
  readonly maxInflatedBytes: number;
  readonly maxPages: number;
}

const workerModule = new URL('./pdf-text-worker.ts', import.meta.url);

/**
 * Heap of one PDF thread. pdf.js holds the file, a copy and each page's parsed content on the
 * heap; what it inflates lies outside it and is capped by `maxInflatedBytes` instead.
 */
const pdfThreadHeapMegabytes = 512;

/**
 * readPdfText's pages (pdf.js's text layer, no rendering) in a thread of its own, started for this
 * file and ended after it (its heap goes with it): one page dense with text takes pdf.js a second
 * or more of CPU, which must not stop the server's event loop. Rejects on `signal` or past the
 * time or heap limit.
 */
export function readPdfPagesInThread(request: PdfPagesRequest, timeoutMs: number, signal: AbortSignal): Promise<PdfPagesReply> {
  const limits: ThreadLimits = { timeoutMs, heapMegabytes: pdfThreadHeapMegabytes };
  return runInThread<PdfPagesReply>(workerModule, request, limits, "reading the PDF's text", signal);
}
