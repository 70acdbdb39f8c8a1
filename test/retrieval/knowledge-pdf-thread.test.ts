import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createKnowledgeIndex } from '../../src/store/knowledge/create-knowledge-index.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { encodeForm } from '../helpers/multipart-form.ts';
import { digitalPdf } from '../helpers/rendered-documents.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

/**
 * A PDF of one page dense with text (850,000 characters): pdf.js reads a page in one stretch of
 * CPU (about a second for this one on the development machine), which on the server's event loop
 * would stall every other request.
 */
function denseTextPdf(): Promise<Buffer> {
  const linesPerPage = 10_000;
  const lineHeight = 820 / linesPerPage;
  return digitalPdf(
    Array.from({ length: 1 }, (_, page) => ({
      width: 595,
      height: 842,
      items: Array.from({ length: linesPerPage }, (_, line) => ({
        text: `Ledger ${page}.${line}: the quick brown fox jumps over the lazy dog near the river bank.`,
        x: 20,
        y: 10 + line * lineHeight,
        size: lineHeight,
      })),
    })),
  );
}

async function uploadPdf(test: TestPlatform, knowledgeId: string, pdf: Buffer) {
  const { payload, contentType } = await encodeForm([
    ['purpose', 'retrieval'],
    ['knowledge_id', knowledgeId],
    ['file', pdf, 'ledger.pdf', 'application/pdf'],
  ]);
  return test.app.inject({ method: 'POST', url: '/paas/v4/files', headers: { authorization: test.authorization, 'content-type': contentType }, payload });
}

async function listedFiles(test: TestPlatform): Promise<unknown[]> {
  const listed = await test.app.inject({ method: 'GET', url: '/paas/v4/files', headers: { authorization: test.authorization } });
  assert.equal(listed.statusCode, 200, listed.body);
  return (listed.json() as { data: unknown[] }).data;
}

describe("a knowledge base PDF's text is read in a thread of its own", () => {
  let pdf: Buffer;
  before(async () => {
    pdf = await denseTextPdf();
  });

  describe('with the default limits', () => {
    let test: TestPlatform;
    before(async () => {
      test = await startTestPlatform();
    });
    after(() => test.close());

    it('answers other requests promptly while a large PDF is read, then finds its passages', async () => {
      let finished = false;
      const uploadStarted = performance.now();
      const pending = uploadPdf(test, 'kb-ledger', pdf).then((response) => {
        finished = true;
        return response;
      });
      // Requests one after another while the upload is under way, each sent 20 ms after the last answer: a page read on
      // the event loop would hold up the timer or the request, so each round is timed whole.
      const rounds: number[] = [];
      await new Promise((resolve) => setTimeout(resolve, 100));
      while (!finished && rounds.length < 1000) {
        const started = performance.now();
        await new Promise((resolve) => setTimeout(resolve, 20));
        await listedFiles(test);
        rounds.push(performance.now() - started);
      }
      const response = await pending;
      const uploadMs = performance.now() - uploadStarted;
      assert.equal(response.statusCode, 200, response.body);
      assert.ok(rounds.length >= 10, `requests answered while the PDF was read: ${rounds.length}`);
      // Read on the event loop, the PDF would hold up one round for most of the upload; in a thread,
      // no round comes near that. The bound scales with the upload so that a busy host, which slows
      // both, does not fail it.
      const bound = Math.max(600, uploadMs / 4);
      assert.ok(Math.max(...rounds) < bound, `slowest round meanwhile: ${Math.round(Math.max(...rounds))} ms of a ${Math.round(uploadMs)} ms upload`);
      const hits = await createKnowledgeIndex(test.platform.database).search(test.key.split('.')[0] ?? '', 'kb-ledger', 'Ledger 0.9999', 1);
      assert.match(hits?.[0]?.content ?? '', /Ledger 0\.9999: the quick brown fox/, JSON.stringify(hits));
    });
  });

  describe('with knowledge.readTimeoutMs in the config', () => {
    let test: TestPlatform;
    before(async () => {
      test = await startTestPlatform({ config: { knowledge: { readTimeoutMs: 500 } } });
    });
    after(() => test.close());

    it('refuses a PDF whose reading passes the limit with 1214, keeping nothing', async () => {
      const response = await uploadPdf(test, 'kb-ledger', pdf);
      assertPlatformError(response, { status: 400, code: '1214', mentions: ['file', 'took longer than 0.5 s'] });
      assert.deepEqual(await listedFiles(test), []);
      assert.equal(await createKnowledgeIndex(test.platform.database).has(test.key.split('.')[0] ?? '', 'kb-ledger'), false);
    });
  });
});
