// A one-shot worker thread of readPdfPagesInThread: pdf.js reads a page's text in one stretch of
// CPU, which must not stop the server's event loop.
import { answerInThread } from '../../core/threads/one-shot-thread.ts';
import { pdfInflatedBytes } from '../pdf/pdf-inflation.ts';
import { pdfUnreadable } from '../pdf/pdf-unreadable-error.ts';
import { PdfPageLimitError, readPdfText } from '../reader/pdf-text.ts';
import type { PdfPagesReply, PdfPagesRequest } from './pdf-text-thread.ts';

await answerInThread(async ({ bytes, maxInflatedBytes, maxPages }: PdfPagesRequest): Promise<PdfPagesReply> => {
  // Counted before pdf.js inflates anything: what it inflates lies outside the thread's heap limit.
  if ((await pdfInflatedBytes(bytes, maxInflatedBytes)) === undefined) {
    const megabytes = maxInflatedBytes / 1024 / 1024;
    return { overLimit: `its compressed streams inflate to more than ${megabytes} MB; a PDF for a knowledge base may inflate to at most ${megabytes} MB` };
  }
  try {
    return { pages: (await readPdfText(bytes, maxPages)).pages };
  } catch (error) {
    if (error instanceof PdfPageLimitError) return { overLimit: error.message };
    // pdf.js's error names (PasswordException...) do not cross the thread: they are put in words here.
    return { unreadable: pdfUnreadable(error).message };
  }
});
