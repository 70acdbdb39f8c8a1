import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cacheKey } from '../../../src/tools/reader/web-page-reader.ts';
import { startFakeWeb, type FakeWeb } from '../../helpers/fake-web.ts';
import { databaseTargets, reportSkippedPostgres } from '../../helpers/test-databases.ts';
import { openTestReader, readOptions, type TestReader } from './open-test-reader.ts';

reportSkippedPostgres();

for (const target of databaseTargets) {
  describe(`reader cache on ${target.name}`, () => {
    let web: FakeWeb;
    let test: TestReader;
    let databaseUrl: string | undefined;
    let now = Date.parse('2025-01-01T00:00:00Z');
    before(async () => {
      web = await startFakeWeb();
      databaseUrl = await target.create();
      test = await openTestReader({ fetch: { allow: ['127.0.0.1'] }, reader: { cacheTtlSeconds: 60 } }, { databaseUrl, now: () => now });
    });
    after(async () => {
      await test.close();
      await target.drop(databaseUrl);
      await web.close();
    });
    const read = (overrides: Parameters<typeof readOptions>[0] = {}) => test.reader.read(web.url('/counter'), readOptions(overrides));

    it('serves the second read from the database', async () => {
      const first = await read();
      const second = await read();
      assert.match(first.content, /Visit number 1\./);
      assert.deepEqual(second, first);
      assert.equal(web.hits('/counter'), 1);
      const rows = await test.database.db.selectFrom('reader_cache').select(['url', 'expires_at']).execute();
      assert.deepEqual(
        rows.map((row) => [row.url, Number(row.expires_at)]),
        [[web.url('/counter'), now + 60_000]],
      );
    });

    it('fetches again with no_cache, and keeps the fresh copy', async () => {
      const fresh = await read({ noCache: true });
      assert.match(fresh.content, /Visit number 2\./);
      assert.equal(web.hits('/counter'), 2);
      assert.match((await read()).content, /Visit number 2\./);
      assert.equal(web.hits('/counter'), 2);
    });

    it('keys the cache by the options that change the output, not by the timeout', async () => {
      assert.match((await read({ returnFormat: 'text' })).content, /Visit number 3\./);
      assert.match((await read({ timeoutMs: 9_000 })).content, /Visit number 2\./);
      assert.equal(web.hits('/counter'), 3);
      const base = readOptions();
      const keys = new Set(
        [
          base,
          { ...base, retainImages: false },
          { ...base, noGfm: true },
          { ...base, keepImgDataUrl: true },
          { ...base, withImagesSummary: true },
          { ...base, withLinksSummary: true },
          { ...base, returnFormat: 'text' as const },
        ].map((options) => cacheKey(web.url('/counter'), options)),
      );
      assert.equal(keys.size, 7);
      assert.equal(cacheKey(web.url('/counter'), readOptions({ timeoutMs: 1 })), cacheKey(web.url('/counter'), base));
    });

    it('fetches again once the entry expired, and drops expired rows', async () => {
      now += 61_000;
      assert.match((await read()).content, /Visit number 4\./);
      assert.equal(web.hits('/counter'), 4);
      const rows = await test.database.db.selectFrom('reader_cache').select('expires_at').execute();
      assert.deepEqual(
        rows.map((row) => Number(row.expires_at)),
        [now + 60_000],
        'the expired text-format row is gone',
      );
    });

    it('does not cache failures', async () => {
      await assert.rejects(test.reader.read(web.url('/status/404'), readOptions()));
      await assert.rejects(test.reader.read(web.url('/status/404'), readOptions()));
      assert.equal(web.hits('/status/404'), 2);
    });
  });
}
