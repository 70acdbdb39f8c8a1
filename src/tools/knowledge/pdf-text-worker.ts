// A one-shot worker thread of readPdfPagesInThread: pdf.js reads a page's text in one stretch of
// CPU, which must not stop the server's event loop.
import { answerInThread } from '../../core/threads/one-shot-thread.ts';
import { pdfUnreadable } from '../pdf/pdf-unreadable-error.ts';
import { readPdfText } from '../reader/pdf-text.ts';
import type { PdfPagesReply } from './pdf-text-thread.ts';

await answerInThread(async (bytes: Uint8Array): Promise<PdfPagesReply> => {
  try {
    return { pages: (await readPdfText(bytes)).pages };
  } catch (error) {
    // pdf.js's error names (PasswordException...) do not cross the thread: they are put in words here.
    return { unreadable: pdfUnreadable(error).message };
  }
});
