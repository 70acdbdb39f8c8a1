import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { startFakeWeb, type FakeWeb } from '../helpers/fake-web.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

const path = '/paas/v4/reader';

describe('POST /paas/v4/reader on the in-process reader', () => {
  let web: FakeWeb;
  let test: TestPlatform;
  let closed: TestPlatform;
  before(async () => {
    web = await startFakeWeb();
    test = await startTestPlatform({ config: { fetch: { allow: ['127.0.0.1'] } } });
    closed = await startTestPlatform();
  });
  after(async () => {
    await test.close();
    await closed.close();
    await web.close();
  });

  it('answers the platform response shape', async () => {
    const response = await postJson(test, path, { url: web.url('/blog/article.html'), timeout: '10', request_id: 'reader-request-1' });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json() as Record<string, unknown> & { reader_result: Record<string, unknown> };
    assert.deepEqual(Object.keys(body).sort(), ['created', 'id', 'model', 'reader_result', 'request_id']);
    assert.equal(body['request_id'], 'reader-request-1');
    assert.equal(body['model'], 'web-reader');
    assert.match(String(body['id']), /^\d{14}[0-9a-f]{16}$/);
    assert.ok(Math.abs(Number(body['created']) - Date.now() / 1000) < 60);
    const result = body.reader_result;
    assert.deepEqual(Object.keys(result).sort(), ['content', 'description', 'external', 'metadata', 'publishedTime', 'title', 'url']);
    assert.equal(result['url'], web.url('/blog/article.html'));
    assert.equal(result['title'], 'Reading the Fake Web');
    assert.equal(result['description'], 'An article the reader tests read.');
    assert.match(String(result['content']), /\| Planet \| Moons \|/);
    assert.equal(result['publishedTime'], '2024-05-06T05:08:09.000Z');
    assert.deepEqual(result['external'], {
      stylesheet: { [web.url('/static/site.css')]: { type: 'text/css' }, [web.url('/blog/print.css')]: { type: 'text/css', media: 'print' } },
    });
    assert.deepEqual(result['metadata'], {
      description: 'An article the reader tests read.',
      keywords: 'reader, test, fake web',
      viewport: 'width=device-width, initial-scale=1',
      'format-detection': 'telephone=no',
      'og:title': 'Reading the Fake Web (Open Graph)',
      'article:published_time': '2024-05-06T07:08:09+02:00',
    });
  });

  it('maps every option of the wire body (text, no images, summaries, no_gfm) and accepts null as absent', async () => {
    const response = await postJson(test, path, {
      url: web.url('/blog/article.html'),
      timeout: 10,
      no_cache: true,
      return_format: 'text',
      retain_images: false,
      no_gfm: null,
      keep_img_data_url: null,
      with_images_summary: true,
      with_links_summary: true,
    });
    assert.equal(response.statusCode, 200, response.body);
    const result = (response.json() as { reader_result: { content: string; images: unknown; links: Record<string, string> } }).reader_result;
    assert.doesNotMatch(result.content, /[|#]|!\[/);
    assert.match(result.content, /Planet\tMoons/);
    assert.deepEqual(result.images, {}, 'retain_images false leaves no image to summarise');
    assert.equal(result.links[web.url('/blog/other/page.html')], 'a relative page');
  });

  it('is served under the alias prefix too', async () => {
    const response = await postJson(test, `/api${path}`, { url: web.url('/notes.txt') });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal((response.json() as { reader_result: { content: string } }).reader_result.content, 'Plain notes.\nSecond line.');
  });

  it('refuses private addresses with a platform error, and does not retry', async () => {
    for (const url of ['http://10.0.0.1/', 'http://169.254.169.254/latest/meta-data/', `http://[::1]:${web.port}/secret`]) {
      const response = await postJson(test, path, { url });
      assertPlatformError(response, { status: 400, code: '1214', mentions: [url, 'private address'] });
      assert.equal(response.headers['x-should-retry'], 'false');
    }
    const redirect = web.url(`/redirect/to?location=${encodeURIComponent(`http://localhost:${web.port}/secret`)}`);
    assertPlatformError(await postJson(test, path, { url: redirect }), { status: 400, code: '1214', mentions: ['redirects to', 'private address'] });
    assert.equal(web.hits('/secret'), 0);
  });

  it('refuses the loopback server itself without the allowlist', async () => {
    const response = await postJson(closed, path, { url: web.url('/blog/article.html') });
    assertPlatformError(response, { status: 400, code: '1214', mentions: ['is a private address'] });
  });

  it('answers each failure of the page with its own error', async () => {
    const cases = [
      { url: web.url('/slow'), timeout: '0.5', status: 500, code: '1234', mentions: ['no answer from', 'within 0.5 s'] },
      { url: web.url('/status/404'), status: 400, code: '1214', mentions: ['HTTP 404'] },
      { url: web.url('/files/archive.zip'), status: 400, code: '1214', mentions: ['application/zip'] },
      { url: web.url('/challenge'), status: 400, code: '1214', mentions: ['bot check'] },
      { url: web.url('/empty'), status: 400, code: '1214', mentions: ['no readable content'] },
      { url: web.url('/deep'), status: 400, code: '1214', mentions: ['more than 256 levels deep'] },
    ];
    for (const { url, timeout, status, code, mentions } of cases) {
      const response = await postJson(test, path, { url, ...(timeout === undefined ? {} : { timeout }) });
      assertPlatformError(response, { status, code, mentions: [url, ...mentions] });
    }
  });
});
