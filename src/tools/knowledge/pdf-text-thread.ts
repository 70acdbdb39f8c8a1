import { runInThread, type ThreadLimits } from '../../core/threads/one-shot-thread.ts';

/** The text of each page, or why pdf.js cannot read the file (damaged, protected), in words for its sender. */
export type PdfPagesReply = { readonly pages: readonly string[] } | { readonly unreadable: string };

const workerModule = new URL('./pdf-text-worker.ts', import.meta.url);

/**
 * readPdfText's pages (pdf.js's text layer, no rendering) in a thread of its own, started for this
 * file and ended after it: one page dense with text takes pdf.js a second or more of CPU, which
 * must not stop the server's event loop. Its heap: pdf.js holds the file, a copy and each page's
 * parsed content. Rejects on `signal` or past the limits.
 */
export function readPdfPagesInThread(bytes: Uint8Array, timeoutMs: number, signal: AbortSignal): Promise<PdfPagesReply> {
  const limits: ThreadLimits = { timeoutMs, heapMegabytes: 1024 };
  return runInThread<PdfPagesReply>(workerModule, bytes, limits, "reading the PDF's text", signal);
}
