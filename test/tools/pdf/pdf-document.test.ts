import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { PDFDocument, PDFHexString, PDFName, StandardFonts } from 'pdf-lib';
import { openPdf, PdfUnreadableError } from '../../../src/tools/pdf/pdf-document.ts';
import { digitalPdf } from '../../helpers/rendered-documents.ts';

async function longPdf(pages: number): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (let number = 1; number <= pages; number += 1) {
    document.addPage([300, 400]).drawText(`Page ${number} of the long document`, { x: 30, y: 350, size: 12, font });
  }
  return document.save();
}

/** A PDF whose standard security handler wants a user password (the empty one does not match). */
async function passwordProtectedPdf(): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  document.addPage([200, 200]);
  const encryption = document.context.obj({ Filter: 'Standard', V: 1, R: 2, P: -4 });
  encryption.set(PDFName.of('O'), PDFHexString.of('ab'.repeat(32)));
  encryption.set(PDFName.of('U'), PDFHexString.of('cd'.repeat(32)));
  document.context.trailerInfo.Encrypt = document.context.register(encryption);
  document.context.trailerInfo.ID = document.context.obj([PDFHexString.of('01'.repeat(16)), PDFHexString.of('01'.repeat(16))]);
  return document.save({ useObjectStreams: false });
}

async function assertUnreadable(bytes: Uint8Array, reason: RegExp): Promise<void> {
  await assert.rejects(openPdf(bytes), (error: unknown) => {
    assert.ok(error instanceof PdfUnreadableError, String(error));
    assert.match(error.message, /^the PDF cannot be read: /);
    assert.match(error.message, reason);
    return true;
  });
}

// The first document loads pdf.js and its in-process worker (seconds); timings start after that.
before(async () => (await openPdf(await digitalPdf([{ width: 100, height: 100, items: [] }]))).close());

describe('opening a PDF', () => {
  it('reads the page count of a 31-page PDF without parsing its pages', async () => {
    const bytes = await longPdf(31);
    const started = performance.now();
    const pdf = await openPdf(bytes);
    const elapsed = performance.now() - started;
    try {
      assert.equal(pdf.pageCount, 31);
      assert.ok(elapsed < 1000, `opening took ${elapsed.toFixed(0)} ms`);
      const last = await pdf.page(31);
      assert.equal(last.number, 31);
      assert.deepEqual(
        last.textLines(1).map((line) => line.text),
        ['Page 31 of the long document'],
      );
      await assert.rejects(pdf.page(32), /page 32 does not exist: the PDF has 31 pages/);
      await assert.rejects(pdf.page(0), RangeError);
    } finally {
      await pdf.close();
    }
  });

  it('refuses pages once the document is closed, and closes twice without harm', async () => {
    const pdf = await openPdf(await digitalPdf([{ width: 200, height: 200, items: [{ text: 'Closed soon', x: 20, y: 20, size: 12 }] }]));
    await pdf.close();
    await pdf.close();
    await assert.rejects(pdf.page(1), /closed/);
  });

  it('leaves the caller’s bytes intact (pdf.js takes over the buffer it is given)', async () => {
    const bytes = new Uint8Array(await digitalPdf([{ width: 200, height: 200, items: [] }]));
    const copy = bytes.slice();
    const pdf = await openPdf(bytes);
    await pdf.close();
    assert.equal(bytes.byteLength, copy.byteLength);
    assert.deepEqual(bytes, copy);
  });
});

describe('unreadable PDFs', () => {
  it('refuses a PDF header followed by garbage', async () => {
    await assertUnreadable(new TextEncoder().encode(`%PDF-1.7\n${'garbage '.repeat(100)}`), /damaged, truncated or not a PDF/);
  });

  it('refuses a truncated PDF', async () => {
    const whole = await digitalPdf([{ width: 300, height: 300, items: [{ text: 'Cut in half', x: 20, y: 20, size: 12 }] }]);
    await assertUnreadable(whole.subarray(0, Math.floor(whole.length / 2)), /damaged, truncated or not a PDF/);
  });

  it('refuses an empty file', async () => {
    await assertUnreadable(new Uint8Array(), /empty/);
  });

  it('says when the PDF is protected by a password', async () => {
    await assertUnreadable(await passwordProtectedPdf(), /protected by a password/);
  });
});
