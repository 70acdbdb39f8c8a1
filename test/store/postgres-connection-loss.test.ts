import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { openDatabase } from '../../src/store/database.ts';
import { databaseTargets, reportSkippedPostgres } from '../helpers/test-databases.ts';

reportSkippedPostgres();

const postgres = databaseTargets.find((target) => target.name === 'postgres');

describe('PostgreSQL connections ended by the server', { skip: postgres === undefined ? 'no TEST_DATABASE_URL' : false }, () => {
  it('cost the pool an idle connection, not the process: the next query opens a new one', async () => {
    const url = (await postgres?.create()) ?? '';
    const database = openDatabase({ databaseUrl: url, dataDir: '' });
    try {
      await database.ping().catch(() => undefined); // opens a pooled connection (no tables: the query may fail)
      const admin = new pg.Client({ connectionString: process.env['TEST_DATABASE_URL'] });
      await admin.connect();
      try {
        const name = new URL(url).pathname.slice(1);
        const ended = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
        assert.ok((ended.rowCount ?? 0) >= 1, 'the pooled connection was ended');
      } finally {
        await admin.end();
      }
      // Without an error listener on the pool, the ended connection's error would end this process here.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const answer = await database.db.selectNoFrom((builder) => builder.val(1).as('one')).executeTakeFirstOrThrow();
      assert.equal(Number(answer.one), 1);
    } finally {
      await database.close();
      await postgres?.drop(url);
    }
  });
});
