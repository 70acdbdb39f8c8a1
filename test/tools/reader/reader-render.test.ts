import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { HostResolver } from '../../../src/tools/fetch/ssrf-guard.ts';
import { startFakeWeb, type FakeWeb } from '../../helpers/fake-web.ts';
import { openTestReader, readOptions, type TestReader } from './open-test-reader.ts';

/** site.test and secret.test are both the fake web (127.0.0.1); only site.test is allowed. */
const resolve: HostResolver = async (hostname) => {
  if (hostname === 'site.test' || hostname === 'secret.test') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

const chromium = '/usr/bin/chromium';

describe('reader: script-built pages rendered in Chromium', { skip: existsSync(chromium) ? false : `${chromium} is not installed` }, () => {
  let web: FakeWeb;
  let test: TestReader;
  before(async () => {
    web = await startFakeWeb();
    test = await openTestReader({ fetch: { allow: ['site.test'] }, reader: { render: true, cacheTtlSeconds: 0 } }, { resolve });
  });
  after(async () => {
    await test.close();
    await web.close();
  });
  const probe = (target: string) =>
    test.reader.read(web.url(`/scripted-probe?target=${encodeURIComponent(target)}`, 'site.test'), readOptions({ timeoutMs: 15_000 }));

  it('reads the content the page script builds (its own fetches served through the guard)', async () => {
    const result = await test.reader.read(web.url('/scripted', 'site.test'), readOptions({ timeoutMs: 15_000 }));
    assert.match(result.content, /Rendered paragraph 1: this text exists only after the page script ran/);
    assert.match(result.content, /Rendered paragraph 5/);
    assert.ok(web.hits('/api/story.json') >= 1);
  });

  it('reads what the scripts built when a slow subresource keeps the page from loading by the deadline', async () => {
    const started = Date.now();
    const result = await test.reader.read(web.url('/scripted-slow-load', 'site.test'), readOptions({ timeoutMs: 2_000 }));
    assert.match(result.content, /Paragraph 3 of the slow-loading page\./);
    assert.ok(Date.now() - started < 4_000);
  });

  it('lets the page fetch from its own allowed host (the probe can succeed)', async () => {
    const result = await probe(web.url('/notes.txt', 'site.test'));
    assert.match(result.content, /LEAKED Plain notes\./);
  });

  it("follows the browser's redirects in the guarded fetcher, each hop checked", async () => {
    const redirect = (target: string): string => web.url(`/redirect/to?location=${encodeURIComponent(target)}`, 'site.test');
    assert.match((await probe(redirect(web.url('/notes.txt', 'site.test')))).content, /LEAKED Plain notes\./);
    const refused = await probe(redirect(web.url('/secret', 'secret.test')));
    assert.match(refused.content, /The private fetch failed\./);
    assert.equal(web.hits('/secret'), 0);
  });

  it("refuses the browser's requests to hosts the guard refuses", async () => {
    for (const target of [web.url('/secret', 'secret.test'), web.url('/secret'), `http://localhost:${web.port}/secret`, `http://[::1]:${web.port}/secret`]) {
      const result = await probe(target);
      assert.match(result.content, /The private fetch failed\./, target);
      assert.doesNotMatch(result.content, /LEAKED/);
    }
    assert.equal(web.hits('/secret'), 0);
  });

  it('still refuses the page itself when its address is refused', async () => {
    await assert.rejects(test.reader.read(web.url('/scripted', 'secret.test'), readOptions()), /resolves to a private address/);
  });
});
