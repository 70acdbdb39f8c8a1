import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encodeForm } from '../helpers/multipart-form.ts';
import { scannedPdf } from '../helpers/rendered-documents.ts';
import { singleColumn } from '../helpers/sample-documents.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { createKnowledgeIndex } from '../../src/store/knowledge/create-knowledge-index.ts';

/** A PDF without a text layer goes through the platform's OCR model (glm-ocr, in process), which needs no configuration. */
/** Uploads a rendered scan of one page into the key's knowledge base 'scans'. */
async function uploadScan(test: TestPlatform) {
  const { payload, contentType } = await encodeForm([
    ['purpose', 'retrieval'],
    ['knowledge_id', 'scans'],
    ['file', await scannedPdf([singleColumn.page]), 'scan.pdf', 'application/pdf'],
  ]);
  return test.app.inject({
    method: 'POST',
    url: '/paas/v4/files',
    headers: { authorization: test.authorization, 'content-type': contentType },
    payload,
  });
}

describe('a scanned PDF in a knowledge base', () => {
  let test: TestPlatform;
  before(async () => {
    test = await startTestPlatform();
  });
  after(() => test.close());

  it('is read through layout parsing and its passages found', async () => {
    const response = await uploadScan(test);
    assert.equal(response.statusCode, 200, response.body);
    const hits = await createKnowledgeIndex(test.platform.database).search(test.key.split('.')[0] ?? '', 'scans', 'How are lines recognised and detected?', 3);
    assert.match(hits?.[0]?.content ?? '', /recogn/i, JSON.stringify(hits));
  });
});

describe('a scanned PDF in a knowledge base, with knowledge.ocrModel in the config', () => {
  let test: TestPlatform;
  before(async () => {
    test = await startTestPlatform({ config: { knowledge: { ocrModel: 'house-ocr' } } });
  });
  after(() => test.close());

  it('goes to the configured model (here one the catalog lacks: refused, nothing kept)', async () => {
    const response = await uploadScan(test);
    assert.notEqual(response.statusCode, 200);
    assert.match(response.body, /house-ocr/);
    const listed = await test.app.inject({ method: 'GET', url: '/paas/v4/files?purpose=retrieval', headers: { authorization: test.authorization } });
    assert.equal((JSON.parse(listed.body) as { data: unknown[] }).data.length, 0, listed.body);
  });
});
