import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../src/core/errors/api-error.ts';
import { DocumentReaders } from '../../src/tools/knowledge/document-readers.ts';
import { maxKnowledgeHtmlElements } from '../../src/tools/knowledge/knowledge-document-text.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { encodeForm } from '../helpers/multipart-form.ts';
import { doublyInflatingPdf, inflatingPdf, textPdf } from '../helpers/pdf-bombs.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

/** The server's resident memory must stay under this while bombs are read: a container with a 2 GB limit survives. */
const rssCeilingBytes = 1.5 * 1024 * 1024 * 1024;
/** How far above its resting level the server may stay once the uploads are over. */
const afterRestMarginBytes = 300 * 1024 * 1024;
/** Generous for a loaded 2-core CI host: the point is that nothing waits behind the readers. */
const promptMs = 5000;

const megabyte = 1024 * 1024;

async function upload(test: TestPlatform, knowledgeId: string, bytes: Buffer, filename: string, type: string) {
  const { payload, contentType } = await encodeForm([
    ['purpose', 'retrieval'],
    ['knowledge_id', knowledgeId],
    ['file', bytes, filename, type],
  ]);
  return test.app.inject({ method: 'POST', url: '/paas/v4/files', headers: { authorization: test.authorization, 'content-type': contentType }, payload });
}

/** Samples the process's resident memory every 20 ms until stopped; the highest seen. */
function watchResidentMemory(): { stop(): number } {
  let highest = process.memoryUsage.rss();
  const timer = setInterval(() => {
    highest = Math.max(highest, process.memoryUsage.rss());
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(highest, process.memoryUsage.rss());
    },
  };
}

describe('knowledge uploads built to exhaust memory are read within a budget', () => {
  let test: TestPlatform;
  let pdfBomb: Buffer;
  let doublePdfBomb: Buffer;
  let htmlBomb: Buffer;

  before(async () => {
    // As in the field: a 1 MB PDF whose one stream inflates to 1 GB, and a few kB that do the same through two filters.
    [pdfBomb, doublePdfBomb] = await Promise.all([inflatingPdf(1024 * megabyte), doublyInflatingPdf(1024 * megabyte)]);
    // 5 MB of bare elements: a DOM of a million nodes, and Readability's passes over each.
    htmlBomb = Buffer.from(`<!doctype html><html><body>${'<div><b>x</b></div>'.repeat((5 * megabyte - 100) / 19)}</body></html>`);
    test = await startTestPlatform();
  });
  after(() => test.close());

  it(
    'refuses concurrent PDF and HTML bombs with 1214 naming the limit, under the RSS ceiling, answering others promptly, and returns to rest',
    { timeout: 300_000 },
    async () => {
      // A first upload loads pdf.js and the thread machinery: the resting level is measured after it.
      assert.equal((await upload(test, 'warm-up', textPdf('warm up'), 'warm.pdf', 'application/pdf')).statusCode, 200);
      const restingBytes = process.memoryUsage.rss();

      const memory = watchResidentMemory();
      const uploads = Promise.all([
        ...Array.from({ length: 3 }, (_, index) => upload(test, 'bombs', pdfBomb, `bomb-${index}.pdf`, 'application/pdf')),
        ...Array.from({ length: 2 }, (_, index) => upload(test, 'bombs', doublePdfBomb, `double-${index}.pdf`, 'application/pdf')),
        ...Array.from({ length: 4 }, (_, index) => upload(test, 'bombs', htmlBomb, `bomb-${index}.html`, 'text/html')),
        upload(test, 'real', textPdf('The harbour opens at six'), 'real.pdf', 'application/pdf'),
      ]);
      // Other requests while the uploads are read: each answered promptly.
      let uploadsDone = false;
      const others: number[] = [];
      const otherRequests = (async () => {
        while (!uploadsDone) {
          const started = Date.now();
          const listed = await test.app.inject({ method: 'GET', url: '/paas/v4/files', headers: { authorization: test.authorization } });
          assert.equal(listed.statusCode, 200, listed.body);
          others.push(Date.now() - started);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();
      const answers = await uploads;
      uploadsDone = true;
      await otherRequests;
      const highestBytes = memory.stop();

      const pdfAnswers = answers.slice(0, 5);
      const htmlAnswers = answers.slice(5, 9);
      for (const answer of pdfAnswers) assertPlatformError(answer, { status: 400, code: '1214', mentions: ['inflate to more than 256 MB'] });
      for (const answer of htmlAnswers)
        assertPlatformError(answer, { status: 400, code: '1214', mentions: [`more than ${maxKnowledgeHtmlElements} elements`] });
      assert.equal(answers[9]?.statusCode, 200, answers[9]?.body);

      assert.ok(highestBytes < rssCeilingBytes, `resident memory reached ${Math.round(highestBytes / megabyte)} MB`);
      assert.ok(others.length > 0 && Math.max(...others) < promptMs, `other requests took ${others.join(', ')} ms`);

      // Back near rest: the reader threads ended and took their heaps with them.
      let afterBytes = process.memoryUsage.rss();
      for (let tries = 0; tries < 50 && afterBytes > restingBytes + afterRestMarginBytes; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        afterBytes = process.memoryUsage.rss();
      }
      assert.ok(
        afterBytes <= restingBytes + afterRestMarginBytes,
        `resting ${Math.round(restingBytes / megabyte)} MB, highest ${Math.round(highestBytes / megabyte)} MB, after ${Math.round(afterBytes / megabyte)} MB`,
      );
    },
  );

  it('lists no refused upload: only the real file and the warm-up remain', async () => {
    const listed = await test.app.inject({ method: 'GET', url: '/paas/v4/files', headers: { authorization: test.authorization } });
    const names = (listed.json() as { data: { filename: string }[] }).data.map((file) => file.filename).sort();
    assert.deepEqual(names, ['real.pdf', 'warm.pdf']);
  });
});

describe("the server's document readers", () => {
  it('run at most their number at once; an upload that finds none free in time is refused with 1305 naming the setting', async () => {
    const readers = new DocumentReaders(1, 200);
    let finish: () => void = () => undefined;
    const held = readers.read('first caller', AbortSignal.timeout(10_000), () => new Promise<void>((resolve) => (finish = resolve)));
    assert.equal(readers.busy, 1);
    await assert.rejects(
      readers.read('second caller', AbortSignal.timeout(10_000), async () => 'read'),
      (error: unknown) => error instanceof ApiError && error.code === '1305' && /maxConcurrentReaders/.test(error.message),
    );
    finish();
    await held;
    assert.equal(await readers.read('second caller', AbortSignal.timeout(10_000), async () => 'read'), 'read');
    assert.equal(readers.busy, 0);
  });
});
