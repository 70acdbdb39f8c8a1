import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { databaseTargets, reportSkippedPostgres } from '../helpers/test-databases.ts';
import { postJson, startTestPlatform } from '../helpers/test-platform.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';

reportSkippedPostgres();

for (const target of databaseTargets) {
  describe(`storage on ${target.name}`, () => {
    it('migrates, stores keys hashed and sealed, lists, counts and revokes them', async () => {
      const url = await target.create();
      const test = await startTestPlatform(url === undefined ? {} : { databaseUrl: url });
      try {
        assert.equal(test.platform.database.dialect, target.name);
        assert.deepEqual(await migrateToLatest(test.platform.database), [], 'a second migration run applies nothing');
        const [id, secret] = test.key.split('.') as [string, string];
        const stored = await test.platform.keys.findKey(id);
        assert.ok(stored !== undefined);
        assert.notEqual(stored.secretHash, secret);
        assert.ok(!stored.secretSealed.includes(secret), 'the secret is not stored in clear');
        assert.equal(typeof stored.createdAt, 'number');
        assert.equal(stored.revokedAt, null);

        const second = await test.platform.keys.create({ name: 'second' });
        assert.equal(await test.platform.keys.count(), 2);
        assert.deepEqual((await test.platform.keys.list()).map((key) => key.name).sort(), ['second', 'test']);

        const ok = await postJson(test, '/paas/v4/chat/completions', {}, { authorization: `Bearer ${second.id}.${second.secret}` });
        assertPlatformError(ok, { status: 400, code: '1213' });
        assert.equal(await test.platform.revokeKey(second.id), true);
        assert.equal(await test.platform.revokeKey(second.id), false, 'revoking twice reports nothing to do');
        const revoked = await postJson(test, '/paas/v4/chat/completions', {}, { authorization: `Bearer ${second.id}.${second.secret}` });
        assertPlatformError(revoked, { status: 401, code: '1000' });
        assert.equal(typeof (await test.platform.keys.findKey(second.id))?.revokedAt, 'number');

        const ready = await test.app.inject({ method: 'GET', url: '/readyz' });
        assert.equal(ready.statusCode, 200);
        assert.equal(ready.json().database, target.name);
      } finally {
        await test.close();
        await target.drop(url);
      }
    });
  });
}
