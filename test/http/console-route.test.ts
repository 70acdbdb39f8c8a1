import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ensureConsoleBuilt } from '../helpers/console-browser.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

describe('the operator console as the server serves it (/console)', () => {
  let test: TestPlatform;
  before(async () => {
    ensureConsoleBuilt();
    test = await startTestPlatform();
  });
  after(() => test.close());

  const get = (url: string) => test.app.inject({ url });

  it('leads GET / to the console, without a key', async () => {
    const answer = await get('/');
    assert.equal(answer.statusCode, 302);
    assert.equal(answer.headers.location, '/console/');
  });

  it('serves the page for every client-side route, revalidated on each load', async () => {
    for (const url of ['/console', '/console/', '/console/keys', '/console/tasks?status=FAIL', '/console/deep/unknown/route']) {
      const answer = await get(url);
      assert.equal(answer.statusCode, 200, url);
      assert.match(String(answer.headers['content-type']), /^text\/html/, url);
      assert.equal(answer.headers['cache-control'], 'no-cache', url);
      assert.match(answer.body, /<div id="root"><\/div>/, url);
    }
  });

  it('lets browsers keep the hashed assets for good, and answers a missing asset 404 rather than the page', async () => {
    const page = (await get('/console/')).body;
    const assets = [...page.matchAll(/\/console\/assets\/[^"]+\.(?:js|css)/g)].map((match) => match[0]);
    assert.ok(assets.length >= 2, page);
    for (const asset of assets) {
      const answer = await get(asset);
      assert.equal(answer.statusCode, 200, asset);
      assert.equal(answer.headers['cache-control'], 'public, max-age=31536000, immutable', asset);
      assert.match(String(answer.headers['content-type']), asset.endsWith('.js') ? /javascript/ : /text\/css/);
    }
    assertPlatformError(await get('/console/assets/index-0000.js'), { status: 404, code: '404', mentions: ['assets/index-0000.js'] });
  });

  it('reads no file outside the build, whatever the path says', async () => {
    for (const url of ['/console/../package.json', '/console/%2e%2e/package.json', '/console/assets/..%2f..%2fpackage.json']) {
      const answer = await get(url);
      assert.ok(!answer.body.includes('"dependencies"'), url);
    }
  });
});
