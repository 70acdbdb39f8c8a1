import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

describe('GET /blobs/<key> (signed downloads)', () => {
  let test: TestPlatform;
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
  let url: URL;

  before(async () => {
    test = await startTestPlatform();
    await test.platform.blobs.put('images/task-1/0.png', png, 'image/png');
    url = new URL(await test.platform.blobs.downloadUrl('images/task-1/0.png', 'http://platform.test:8080'));
  });
  after(() => test.close());

  const get = (path: string, headers: Record<string, string> = {}) => test.app.inject({ method: 'GET', url: path, headers });

  it('serves the blob without an API key, with its content type and length', async () => {
    assert.equal(url.origin, 'http://platform.test:8080');
    assert.equal(url.pathname, '/blobs/images/task-1/0.png');
    const response = await get(`${url.pathname}${url.search}`);
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'image/png');
    assert.equal(response.headers['content-length'], String(png.length));
    assert.deepEqual(response.rawPayload, png);
    assert.match(String(response.headers['cache-control']), /^private, max-age=\d+$/);
  });

  it('answers HEAD with the headers only', async () => {
    const response = await test.app.inject({ method: 'HEAD', url: `${url.pathname}${url.search}` });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'image/png');
    assert.equal(response.rawPayload.length, 0);
  });

  it('refuses a tampered signature, another key under the same signature, and a missing signature (404, platform shape)', async () => {
    const signature = url.searchParams.get('signature') ?? '';
    const tampered = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    const expires = url.searchParams.get('expires') ?? '';
    for (const path of [
      `/blobs/images/task-1/0.png?expires=${expires}&signature=${tampered}`,
      `/blobs/images/task-1/1.png?expires=${expires}&signature=${signature}`,
      `/blobs/images/task-1/0.png?expires=${Number(expires) + 86_400}&signature=${signature}`,
      '/blobs/images/task-1/0.png',
    ]) {
      const response = await get(path);
      assertPlatformError(response, { status: 404, code: '404', mentions: ['signature'] });
      assert.equal(response.headers['x-should-retry'], 'false');
    }
  });

  it('refuses an expired link and says so', async () => {
    const expired = await signedPath('images/task-1/0.png', Date.now() - 2 * 86_400_000);
    assertPlatformError(await get(expired), { status: 404, code: '404', mentions: ['expired'] });
  });

  it('answers 404 for a signed link whose blob is gone, and for paths that try to leave the blob folder', async () => {
    await test.platform.blobs.put('images/task-2/0.png', png, 'image/png');
    const path = new URL(await test.platform.blobs.downloadUrl('images/task-2/0.png', 'http://h')).pathname;
    const query = new URL(await test.platform.blobs.downloadUrl('images/task-2/0.png', 'http://h')).search;
    await test.platform.blobs.delete('images/task-2/0.png');
    assertPlatformError(await get(`${path}${query}`), { status: 404, code: '404', mentions: ['no longer exists'] });
    for (const escape of ['/blobs/../master.key', '/blobs/%2e%2e/master.key', '/blobs/..%2fmaster.key', '/blobs/files/../../master.key']) {
      const response = await get(escape);
      assert.equal(response.statusCode, 404, escape);
      assert.ok(!response.body.includes(test.platform.settings.dataDir), escape);
    }
  });

  /** A download path signed as if made at `madeAt` (so it expires a day later). */
  async function signedPath(key: string, madeAt: number): Promise<string> {
    const signed = new URL(test.platform.blobUrls.url(key, 'http://h', madeAt));
    return `${signed.pathname}${signed.search}`;
  }
});
