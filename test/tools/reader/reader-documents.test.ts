import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../../src/core/errors/api-error.ts';
import { startFakeWeb, type FakeWeb } from '../../helpers/fake-web.ts';
import { openTestReader, readOptions, type TestReader } from './open-test-reader.ts';

function failsWith(code: string, ...words: string[]) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof ApiError, String(error));
    assert.equal(error.code, code, error.message);
    for (const word of words) assert.ok(error.message.includes(word), `'${error.message}' should mention '${word}'`);
    return true;
  };
}

describe('reader: encodings, PDFs, other documents and failures', () => {
  let web: FakeWeb;
  let test: TestReader;
  before(async () => {
    web = await startFakeWeb();
    test = await openTestReader({ fetch: { allow: ['127.0.0.1'] }, reader: { cacheTtlSeconds: 0, maxBytes: 1024 * 1024 } });
  });
  after(async () => {
    await test.close();
    await web.close();
  });
  const read = (path: string, overrides: Parameters<typeof readOptions>[0] = {}) => test.reader.read(web.url(path), readOptions(overrides));

  for (const [path, expected] of [
    ['/charset/latin1-header', 'Ærø og Ålborg'],
    ['/charset/windows-1252-meta', 'Café – “quoted” €5'],
    ['/charset/gbk-meta', '中文网页'],
    ['/charset/gbk-header', '中文网页'],
    ['/charset/header-over-meta', '中文网页'],
  ] as const) {
    it(`decodes ${path}`, async () => {
      const result = await read(path);
      assert.ok(result.content.includes(expected), result.content.slice(0, 200));
      assert.ok(!result.content.includes('\uFFFD'));
    });
  }

  it('reads the text of each page of a PDF (by Content-Type)', async () => {
    const result = await read('/docs/report.pdf');
    assert.match(result.content, /Quarterly Report\s+Revenue grew by twelve percent\.\s+Outlook for the next quarter is steady\./);
    assert.equal(result.title, 'Quarterly Report');
    assert.equal(result.description, 'Numbers of the quarter');
    assert.equal(result.metadata['keywords'], 'report quarter');
    assert.equal(result.publishedTime, '2024-02-03T04:05:06.000Z');
  });

  it('recognises a PDF by its %PDF- bytes when the server says octet-stream', async () => {
    const result = await read('/download?id=7', { withImagesSummary: true, withLinksSummary: true });
    assert.match(result.content, /Revenue grew by twelve percent\./);
    assert.deepEqual(result.images, {});
    assert.deepEqual(result.links, {});
  });

  it('returns a plain text file as it is', async () => {
    const result = await read('/notes.txt');
    assert.equal(result.content, 'Plain notes.\nSecond line.');
  });

  it('refuses files that are neither pages, text nor PDFs, naming their type', async () => {
    await assert.rejects(read('/files/archive.zip'), failsWith('1214', '/files/archive.zip', 'is application/zip', 'not an HTML page'));
    await assert.rejects(read('/images/photo.png'), failsWith('1214', 'is image/png'));
  });

  it('says which HTTP status the page answered', async () => {
    await assert.rejects(read('/status/404'), failsWith('1214', '/status/404', 'HTTP 404 (Not Found)'));
    await assert.rejects(read('/status/503'), failsWith('1234', '/status/503', 'HTTP 503 (Service Unavailable)'));
  });

  it('times out on a slow page, saying after how long', async () => {
    await assert.rejects(read('/slow', { timeoutMs: 500 }), failsWith('1234', 'no answer from', '/slow', 'within 0.5 s'));
  });

  it('refuses a page past the size cap', async () => {
    await assert.rejects(read('/huge'), failsWith('1214', '/huge', 'too large', 'more than 1 MB'));
  });

  it('never hands out a bot-check page as content (403 or 200)', async () => {
    await assert.rejects(read('/challenge'), failsWith('1214', '/challenge', 'bot check'));
    await assert.rejects(read('/challenge-ok'), failsWith('1214', '/challenge-ok', 'bot check'));
  });

  it('refuses an empty page instead of returning an empty body', async () => {
    await assert.rejects(read('/empty'), failsWith('1214', '/empty', 'no readable content'));
  });

  it('says a script-built page needs rendering when rendering is off', async () => {
    await assert.rejects(read('/scripted'), failsWith('1214', '/scripted', 'no readable content', 'reader.render'));
  });
});
