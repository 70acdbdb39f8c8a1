import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../../src/core/errors/api-error.ts';
import { GuardedFetcher } from '../../../src/tools/fetch/guarded-fetcher.ts';
import { SsrfGuard } from '../../../src/tools/fetch/ssrf-guard.ts';
import { articleHtml, startFakeWeb, type FakeWeb } from '../../helpers/fake-web.ts';

function assertApiError(code: string, ...words: string[]) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof ApiError, String(error));
    assert.equal(error.code, code, error.message);
    for (const word of words) assert.ok(error.message.includes(word), `'${error.message}' should mention '${word}'`);
    return true;
  };
}

describe('guarded fetcher', () => {
  let web: FakeWeb;
  let fetcher: GuardedFetcher;
  before(async () => {
    web = await startFakeWeb();
    fetcher = new GuardedFetcher({ guard: new SsrfGuard({ allow: ['127.0.0.1'] }), maxBytes: 1024 * 1024, userAgent: 'fetch-test' });
  });
  after(async () => {
    await fetcher.close();
    await web.close();
  });

  it('returns status, final URL, headers, decoded bytes and the content type', async () => {
    const resource = await fetcher.fetch(web.url('/notes.txt'), { timeoutMs: 2_000 });
    assert.equal(resource.status, 200);
    assert.equal(resource.url, web.url('/notes.txt'));
    assert.equal(resource.headers['content-type'], 'text/plain; charset=utf-8');
    assert.deepEqual(resource.contentType, { mediaType: 'text/plain', charset: 'utf-8' });
    assert.equal(resource.body.toString(), 'Plain notes.\nSecond line.\n');
  });

  it('undoes gzip and drops Content-Encoding once decoded', async () => {
    const resource = await fetcher.fetch(web.url('/gzip/article.html'), { timeoutMs: 2_000 });
    assert.equal(resource.body.toString(), articleHtml);
    assert.equal(resource.headers['content-encoding'], undefined);
  });

  it('follows redirects itself and reports the final URL', async () => {
    const resource = await fetcher.fetch(web.url('/redirect/chain/3'), { timeoutMs: 2_000 });
    assert.equal(resource.status, 200);
    assert.equal(resource.url, web.url('/blog/article.html'));
    assert.equal(resource.requestedUrl, web.url('/redirect/chain/3'));
  });

  it('stops after 5 redirects', async () => {
    await assert.rejects(fetcher.fetch(web.url('/redirect/loop'), { timeoutMs: 2_000 }), assertApiError('1214', 'redirects more than 5 times'));
    await assert.rejects(fetcher.fetch(web.url('/redirect/chain/6'), { timeoutMs: 2_000 }), assertApiError('1214', 'redirects more than 5 times'));
    assert.equal((await fetcher.fetch(web.url('/redirect/chain/5'), { timeoutMs: 2_000 })).status, 200);
  });

  it('hands a redirect back as is when asked not to follow', async () => {
    const resource = await fetcher.fetch(web.url('/redirect/chain/2'), { timeoutMs: 2_000, followRedirects: false });
    assert.equal(resource.status, 307);
    assert.equal(resource.headers['location'], '/redirect/chain/1');
  });

  it('gives up on a slow page at the deadline, saying how long it waited', async () => {
    const started = Date.now();
    await assert.rejects(fetcher.fetch(web.url('/slow'), { timeoutMs: 300 }), assertApiError('1234', 'no answer from', '/slow', 'within 0.3 s'));
    assert.ok(Date.now() - started < 2_000);
  });

  it('drops a streamed body past the size cap', async () => {
    const started = Date.now();
    await assert.rejects(fetcher.fetch(web.url('/huge'), { timeoutMs: 10_000 }), assertApiError('1214', 'too large', 'more than 1 MB'));
    assert.ok(Date.now() - started < 5_000, 'the transfer must stop at the cap, not at the end of 50 MB');
  });

  it('refuses a body whose Content-Length is past the cap without reading it', async () => {
    await assert.rejects(fetcher.fetch(web.url('/huge-declared'), { timeoutMs: 10_000 }), assertApiError('1214', 'too large'));
  });

  it('rethrows the caller’s abort reason, not a timeout', async () => {
    const controller = new AbortController();
    const reason = new Error('client went away');
    setTimeout(() => controller.abort(reason), 100);
    await assert.rejects(fetcher.fetch(web.url('/slow'), { timeoutMs: 5_000, signal: controller.signal }), (error) => error === reason);
  });

  it('fetches only http and https URLs', async () => {
    await assert.rejects(fetcher.fetch('ftp://127.0.0.1/file', { timeoutMs: 2_000 }), (error: unknown) => {
      assertApiError('1214', 'ftp://127.0.0.1/file is not an http or https URL')(error);
      return !(error as Error).message.includes('redirects');
    });
    await assert.rejects(fetcher.fetch('not a url', { timeoutMs: 2_000 }), assertApiError('1214', 'not a url is not a valid URL'));
  });

  it('says when the connection is refused', async () => {
    const closed = await startFakeWeb();
    const url = closed.url('/');
    await closed.close();
    await assert.rejects(fetcher.fetch(url, { timeoutMs: 2_000 }), assertApiError('1234', 'could not fetch', 'ECONNREFUSED'));
  });
});
