import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { documentPages, type TextRecogniser } from '../../../src/tools/document/document-pages.ts';
import { scannedPdf, type PageSpec } from '../../helpers/rendered-documents.ts';

const pages: PageSpec[] = [1, 2, 3, 4].map((number) => ({
  width: 300,
  height: 200,
  items: [{ text: `Page ${number}`, x: 20, y: 20, size: 24 }],
}));

/**
 * A recogniser that answers "page N" for its Nth call, but only once the calls for the next
 * `pagesInFlight - 1` pages have begun (or there are no more pages): each page waits until the
 * document reads ahead as far as it should, so the counts do not depend on timing. A document that
 * does not read ahead leaves the first page waiting, and the test times out.
 */
function gatedRecogniser(pagesInFlight: number) {
  const seen = { calls: 0, atOnce: 0, mostAtOnce: 0, aborted: 0 };
  const waiting: (() => void)[] = [];
  const recognise: TextRecogniser = async (_raster, signal) => {
    const call = ++seen.calls;
    seen.atOnce++;
    seen.mostAtOnce = Math.max(seen.mostAtOnce, seen.atOnce);
    for (const wake of waiting.splice(0)) wake();
    try {
      while (seen.calls < Math.min(call + pagesInFlight - 1, pages.length)) {
        signal.throwIfAborted();
        await new Promise<void>((resolve) => {
          waiting.push(resolve);
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
      }
      signal.throwIfAborted();
      return [{ text: `page ${call}`, box: { x0: 0, y0: 0, x1: 10, y1: 10 }, confidence: 1 }];
    } catch (error) {
      seen.aborted++;
      throw error;
    } finally {
      seen.atOnce--;
    }
  };
  return { recognise, seen };
}

describe('documentPages', () => {
  it('recognises up to pagesInFlight scanned pages at once and gives them in order', { timeout: 30_000 }, async () => {
    const bytes = await scannedPdf(pages);
    for (const pagesInFlight of [1, 2, 3]) {
      const { recognise, seen } = gatedRecogniser(pagesInFlight);
      const texts: string[] = [];
      for await (const page of documentPages({ bytes, format: 'pdf' }, {}, recognise, new AbortController().signal, pagesInFlight)) {
        texts.push(page.lines.map((line) => line.text).join());
      }
      assert.deepEqual(texts, ['page 1', 'page 2', 'page 3', 'page 4']);
      assert.equal(seen.mostAtOnce, pagesInFlight);
    }
  });

  it('stops the pages read ahead when the reader stops early', { timeout: 30_000 }, async () => {
    const { recognise, seen } = gatedRecogniser(3);
    for await (const page of documentPages({ bytes: await scannedPdf(pages), format: 'pdf' }, {}, recognise, new AbortController().signal, 3)) {
      assert.equal(page.lines[0]?.text, 'page 1');
      break;
    }
    assert.equal(seen.atOnce, 0);
    assert.equal(seen.aborted, 2);
  });
});
