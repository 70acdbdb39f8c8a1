import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { postForm, type FormEntry } from '../helpers/multipart-form.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

const url = '/paas/v4/files';
const maxUploadBytes = 100 * 1024 * 1024;
const purposes = ['user_data', 'agent', 'batch', 'code-interpreter', 'voice-clone-input', 'fine-tune', 'retrieval'];

/**
 * A multipart body whose file part is `fileBytes` long, generated chunk by chunk so the test never
 * holds it; `done()` tells whether the server read the body to its end.
 */
function streamedUpload(fields: readonly (readonly [string, string])[], fileBytes: number) {
  const boundary = 'model-platform-test-boundary';
  const head =
    fields.map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`).join('') +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="glossary.csv"\r\nContent-Type: text/csv\r\n\r\n`;
  let finished = false;
  async function* body() {
    yield Buffer.from(head);
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    for (let left = fileBytes; left > 0; left -= chunk.length) yield chunk.subarray(0, Math.min(left, chunk.length));
    yield Buffer.from(`\r\n--${boundary}--\r\n`);
    finished = true;
  }
  return { payload: Readable.from(body()), contentType: `multipart/form-data; boundary=${boundary}`, done: () => finished };
}

const glossary: FormEntry = ['file', Buffer.from('source,target\nhello,你好\n'), 'glossary.csv'];
const purpose: FormEntry = ['purpose', 'user_data'];

/** Each case breaks one rule; the answer must name the field (1213 missing, 1214 invalid). */
const rejected: { name: string; form: FormEntry[]; code: string; field: string }[] = [
  { name: 'purpose missing', form: [glossary], code: '1213', field: 'purpose' },
  { name: 'purpose unknown', form: [['purpose', 'assistants'], glossary], code: '1214', field: 'purpose' },
  { name: 'file missing', form: [purpose], code: '1213', field: 'file' },
  { name: 'file sent as a text field', form: [purpose, ['file', 'hello']], code: '1214', field: 'file' },
  { name: 'two files', form: [purpose, glossary, glossary], code: '1214', field: 'file' },
  { name: 'sentence_size not an integer', form: [purpose, glossary, ['sentence_size', 'big']], code: '1214', field: 'sentence_size' },
  { name: 'a file with an empty filename', form: [purpose, ['file', new TextEncoder().encode('term\tTerm\n'), '']], code: '1214', field: 'file' },
  { name: 'a file whose filename is only a path', form: [purpose, ['file', new TextEncoder().encode('term\tTerm\n'), '../']], code: '1214', field: 'file' },
];

/** Each case breaks one rule of the list query. */
const rejectedQueries: { query: string; field: string }[] = [
  { query: 'limit=0', field: 'limit' },
  { query: 'limit=101', field: 'limit' },
  { query: 'limit=ten', field: 'limit' },
  { query: 'limit=1.5', field: 'limit' },
  { query: 'limit=1&limit=2', field: 'limit' },
  { query: 'purpose=assistants', field: 'purpose' },
  { query: 'order=newest', field: 'order' },
];

describe('files contract', () => {
  let test: TestPlatform;
  const get = (path: string) => test.app.inject({ method: 'GET', url: path, headers: { authorization: test.authorization } });
  before(async () => {
    test = await startTestPlatform();
  });
  after(() => test.close());

  for (const testCase of rejected) {
    it(`POST /files rejects: ${testCase.name}`, async () => {
      const response = await postForm(test, url, testCase.form);
      assertPlatformError(response, { status: 400, code: testCase.code, mentions: [testCase.field] });
    });
  }

  it('POST /files rejects a body that is not multipart, naming the content type it takes', async () => {
    const response = await postJson(test, url, { purpose: 'user_data' });
    assertPlatformError(response, { status: 400, code: '1210', mentions: ['multipart/form-data'] });
  });

  it('POST /files rejects a field over 1 MiB, and text fields over 2 MiB in all', async () => {
    const long = await postForm(test, url, [purpose, ['knowledge_id', 'k'.repeat(1024 * 1024 + 1)], glossary]);
    assertPlatformError(long, { status: 400, code: '1214', mentions: ['knowledge_id', String(1024 * 1024)] });
    const many = Array.from({ length: 3 }, (_, index): FormEntry => [`note${index}`, 'n'.repeat(1000 * 1000)]);
    assertPlatformError(await postForm(test, url, [purpose, ...many, glossary]), { status: 400, code: '1210', mentions: ['text fields'] });
  });

  it('POST /files rejects 100 MB + 1 byte, streamed from a generator and read to its end', async () => {
    const upload = streamedUpload([['purpose', 'user_data']], maxUploadBytes + 1);
    const response = await test.app.inject({
      method: 'POST',
      url,
      headers: { authorization: test.authorization, 'content-type': upload.contentType },
      payload: upload.payload,
    });
    assertPlatformError(response, { status: 435, code: '435', mentions: ['file', '100 MB', String(maxUploadBytes)] });
    assert.ok(upload.done(), 'the whole body was read before the answer');
  });

  it('POST /files accepts every purpose and the Python SDK fields', async () => {
    for (const value of purposes) {
      const response = await postForm(test, url, [
        ['purpose', value],
        ['knowledge_id', 'kb-1'],
        ['sentence_size', '202'],
        ['upload_detail[][url]', 'https://example.com/a.pdf'],
        ['unknown', 'ignored'],
        glossary,
      ]);
      assert.equal(response.statusCode, 200, response.body);
      const file = response.json() as { id: string; purpose: string };
      assert.equal(file.purpose, value);
      const deleted = await test.app.inject({ method: 'DELETE', url: `${url}/${file.id}`, headers: { authorization: test.authorization } });
      assert.equal(deleted.statusCode, 200);
    }
  });

  for (const testCase of rejectedQueries) {
    it(`GET /files rejects ${testCase.query}`, async () => {
      assertPlatformError(await get(`${url}?${testCase.query}`), { status: 400, code: '1214', mentions: [testCase.field] });
    });
  }

  it('GET /files accepts a full query; DELETE and content of an unknown id answer 404', async () => {
    for (const query of ['', '?purpose=user_data&limit=1&order=asc', '?limit=100&order=desc', '?limit=20']) {
      const response = await get(`${url}${query}`);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { object: 'list', data: [], has_more: false });
    }
    assertPlatformError(await get(`${url}?after=file-1`), { status: 400, code: '1214', mentions: ['after', 'file-1'] });
    const deleted = await test.app.inject({ method: 'DELETE', url: `${url}/file-123`, headers: { authorization: test.authorization } });
    assertPlatformError(deleted, { status: 404, code: '404', mentions: ['file-123'] });
    assertPlatformError(await get(`${url}/file-123/content`), { status: 404, code: '404', mentions: ['file-123'] });
  });

  it('is served under every alias prefix', async () => {
    for (const prefix of ['/api/paas/v4', '/api/coding/paas/v4']) {
      assertPlatformError(await postForm(test, `${prefix}/files`, [glossary]), { status: 400, code: '1213', mentions: ['purpose'] });
      assertPlatformError(await get(`${prefix}/files?limit=0`), { status: 400, code: '1214', mentions: ['limit'] });
    }
  });

  it('documents the upload form and the binary content in OpenAPI', async () => {
    const document = (await test.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: { content: Record<string, { schema: { properties: Record<string, { format?: string }> } }> };
            responses: Record<string, { content?: Record<string, unknown> }>;
          }
        >
      >;
    };
    const upload = document.paths[url]?.['post']?.requestBody?.content['multipart/form-data'];
    assert.equal(upload?.schema.properties['file']?.format, 'binary');
    const content = document.paths[`${url}/{id}/content`]?.['get']?.responses['200']?.content;
    assert.ok(content?.['application/octet-stream'] !== undefined);
  });
});
