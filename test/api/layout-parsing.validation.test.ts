import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { jsonReply, startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { sharedIdCases } from '../helpers/shared-id-cases.ts';
import { itRejectsEach } from '../helpers/rejected-cases.ts';

const url = '/paas/v4/layout_parsing';
const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** Inline documents: only the leading bytes matter to validation, the rest is filler of the given size. */
const document = (head: readonly number[] | string, size = 64) => {
  const bytes = Buffer.alloc(size, 0x20);
  (typeof head === 'string' ? Buffer.from(head, 'latin1') : Buffer.from(head)).copy(bytes);
  return bytes.toString('base64');
};
const png = document(pngSignature);
const jpg = document([0xff, 0xd8, 0xff, 0xe0]);
const pdf = document('%PDF-1.7\n');
const valid = { model: 'glm-ocr', file: png };
/** The upstream answer of the fake engine behind glm-ocr: acceptance is a 200 and a request upstream. */
const upstreamAnswer = { md_results: '', layout_details: [], data_info: { num_pages: 0, pages: [] }, usage: {} };

/** Each case breaks one rule; the answer must name the field (1213 missing, 1214 invalid). */
const rejected: { name: string; body: Record<string, unknown>; code: string; field: string }[] = [
  { name: 'model missing', body: { file: valid.file }, code: '1213', field: 'model' },
  { name: 'file a URL that does not parse', body: { ...valid, file: 'https://exa mple.com/scan.pdf' }, code: '1214', field: 'file' },
  { name: 'model empty', body: { ...valid, model: '' }, code: '1214', field: 'model' },
  { name: 'file missing', body: { model: 'glm-ocr' }, code: '1213', field: 'file' },
  { name: 'file null', body: { ...valid, file: null }, code: '1213', field: 'file' },
  { name: 'file empty', body: { ...valid, file: '' }, code: '1214', field: 'file' },
  { name: 'file not a string', body: { ...valid, file: { url: valid.file } }, code: '1214', field: 'file' },
  { name: 'file neither URL nor base64', body: { ...valid, file: 'scan.pdf' }, code: '1214', field: 'file' },
  { name: 'file of another URL scheme', body: { ...valid, file: 'ftp://example.com/scan.pdf' }, code: '1214', field: 'file' },
  { name: 'file an unparsable http URL', body: { ...valid, file: 'http://' }, code: '1214', field: 'file' },
  { name: 'file a data URL with a broken payload', body: { ...valid, file: 'data:image/png;base64,@@@@' }, code: '1214', field: 'file' },
  { name: 'file a data URL that is not base64', body: { ...valid, file: 'data:text/plain,hello' }, code: '1214', field: 'file' },
  { name: 'file base64 of bad length', body: { ...valid, file: `${png}A` }, code: '1214', field: 'file' },
  { name: 'file base64 of a format other than JPG, PNG, PDF', body: { ...valid, file: document('GIF89a') }, code: '1214', field: 'file' },
  { name: 'file an image above 10 MB', body: { ...valid, file: document(pngSignature, 10 * 1024 * 1024 + 1) }, code: '1214', field: 'file' },
  { name: 'return_crop_images not boolean', body: { ...valid, return_crop_images: 'true' }, code: '1214', field: 'return_crop_images' },
  { name: 'need_layout_visualization not boolean', body: { ...valid, need_layout_visualization: 1 }, code: '1214', field: 'need_layout_visualization' },
  { name: 'start_page_id 0', body: { ...valid, start_page_id: 0 }, code: '1214', field: 'start_page_id' },
  { name: 'start_page_id not integer', body: { ...valid, start_page_id: 1.5 }, code: '1214', field: 'start_page_id' },
  { name: 'start_page_id as string', body: { ...valid, start_page_id: '1' }, code: '1214', field: 'start_page_id' },
  { name: 'end_page_id 0', body: { ...valid, end_page_id: 0 }, code: '1214', field: 'end_page_id' },
  { name: 'end_page_id before start_page_id', body: { ...valid, start_page_id: 3, end_page_id: 2 }, code: '1214', field: 'end_page_id' },
  ...sharedIdCases(valid),
];

describe('POST /paas/v4/layout_parsing contract', () => {
  let test: TestPlatform;
  let engine: FakeOpenAiServer;
  before(async () => {
    engine = await startFakeOpenAiServer();
    engine.setDefault(jsonReply(upstreamAnswer));
    const upstream = { backend: 'zai' as const, baseUrl: engine.baseUrl, apiKey: 'upstream-key' };
    test = await startTestPlatform({ config: { models: { 'glm-ocr': upstream, 'My-OCR': upstream } } });
  });
  after(async () => {
    await test.close();
    await engine.close();
  });

  /** A request the platform accepted reached the engine and was answered. */
  function assertAccepted(response: { statusCode: number; body: string }): void {
    assert.equal(response.statusCode, 200, response.body);
  }

  itRejectsEach(() => test, url, rejected);

  it('accepts a full request (unknown fields ignored)', async () => {
    const response = await postJson(test, url, {
      ...valid,
      return_crop_images: true,
      need_layout_visualization: true,
      start_page_id: 2,
      end_page_id: 2,
      request_id: 'req-123456',
      user_id: 'user-123456',
      stream: false,
    });
    assertAccepted(response);
  });

  it('accepts null for every optional field', async () => {
    const response = await postJson(test, url, {
      ...valid,
      return_crop_images: null,
      need_layout_visualization: null,
      start_page_id: null,
      end_page_id: null,
      request_id: null,
      user_id: null,
    });
    assertAccepted(response);
  });

  it('accepts the file as a data URL or base64 (wrapped lines included); URLs are fetched in layout-parsing.test.ts', async () => {
    const files = [
      png,
      jpg,
      pdf,
      `data:image/png;base64,${png}`,
      `data:application/pdf;base64,${pdf}`,
      pdf.replace(/(.{76})/g, '$1\n'),
      png.replace(/=+$/, ''),
    ];
    for (const file of files) {
      assertAccepted(await postJson(test, url, { ...valid, file }));
    }
  });

  it('takes a 50 MB PDF as base64 in the body', async () => {
    assertAccepted(await postJson(test, url, { ...valid, file: document('%PDF-1.7\n', 50 * 1024 * 1024) }));
  });

  it('matches the platform model in any letter case', async () => {
    assertAccepted(await postJson(test, url, { ...valid, model: 'GLM-OCR' }));
    assert.equal(engine.requests.at(-1)?.body['model'], 'glm-ocr');
  });

  it('answers 1211 for a model neither the platform nor the catalog knows', async () => {
    const response = await postJson(test, url, { ...valid, model: 'tesseract' });
    assertPlatformError(response, { status: 400, code: '1211', mentions: ['tesseract'] });
  });

  it('matches a catalog model exactly as given', async () => {
    assertAccepted(await postJson(test, url, { ...valid, model: 'My-OCR' }));
    const lowerCase = await postJson(test, url, { ...valid, model: 'my-ocr' });
    assertPlatformError(lowerCase, { status: 400, code: '1211', mentions: ['my-ocr'] });
  });

  it('is served under every alias prefix', async () => {
    for (const prefix of ['/api/paas/v4', '/api/coding/paas/v4']) {
      const response = await postJson(test, `${prefix}/layout_parsing`, { ...valid, start_page_id: 0 });
      assertPlatformError(response, { status: 400, code: '1214', mentions: ['start_page_id'] });
    }
  });
});
