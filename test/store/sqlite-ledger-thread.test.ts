import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import type { UsageRecord } from '../../src/core/usage/usage-record.ts';
import { UsageRecorder } from '../../src/core/usage/usage-recorder.ts';
import { openDatabase, type Database } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { UsageRepository } from '../../src/store/usage-repository.ts';
import { writeTransaction } from '../../src/store/write-transaction.ts';

function record(requestId: string): UsageRecord {
  return {
    keyId: 'key-a',
    model: 'glm-4.7',
    endpoint: 'chat.completions',
    requestId,
    promptTokens: 3,
    completionTokens: 2,
    cachedTokens: 0,
    createdAt: Date.now(),
  };
}

describe('SQLite: the usage ledger from its own thread, beside the main connection', () => {
  let dataDir: string;
  let database: Database;
  /** A second connection to the same file, as the ledger's thread has: it does not wait for locks. */
  let other: SqliteDatabase.Database;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'model-platform-ledger-thread-'));
    database = openDatabase({ databaseUrl: undefined, dataDir });
    await migrateToLatest(database);
    other = new SqliteDatabase(join(dataDir, 'platform.db'));
    other.pragma('busy_timeout = 0');
  });
  after(async () => {
    other.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const ledgerRows = async () => (await database.db.selectFrom('usage_records').select('request_id').execute()).map((row) => row.request_id).sort();

  it('writes batches from its thread, waits for the main connection’s write lock, and ends cleanly on close', async () => {
    const ledger = new UsageRepository(database);
    await ledger.insertMany([record('r-1'), record('r-2')]);
    assert.deepEqual(await ledgerRows(), ['r-1', 'r-2']);
    // The main connection holds the write lock for 150 ms: the thread's batch waits, then lands.
    const locked = database.sqlite;
    assert.ok(locked !== undefined);
    locked.exec('BEGIN IMMEDIATE');
    const started = Date.now();
    const written = ledger.insertMany([record('r-3')]);
    await new Promise((resolve) => setTimeout(resolve, 150));
    locked.exec('COMMIT');
    await written;
    assert.ok(Date.now() - started >= 150);
    assert.deepEqual(await ledgerRows(), ['r-1', 'r-2', 'r-3']);
    const sums = await database.db.selectFrom('usage_daily').select(['calls', 'prompt_tokens']).execute();
    assert.deepEqual(sums, [{ calls: 3, prompt_tokens: 9 }]);
    await ledger.close();
    // A write after close starts a new thread.
    await ledger.insertMany([record('r-4')]);
    await ledger.close();
    assert.deepEqual(await ledgerRows(), ['r-1', 'r-2', 'r-3', 'r-4']);
  });

  it('a batch that fails is rolled back whole and its records stay with the recorder for the next try', async () => {
    const ledger = new UsageRepository(database);
    const errors: unknown[] = [];
    const recorder = new UsageRecorder((records) => ledger.insertMany(records), { flushIntervalMs: 60_000, onError: (error) => errors.push(error) });
    // The first try finds no table to write (another connection renamed it away for that long).
    other.exec('ALTER TABLE usage_records RENAME TO usage_records_away');
    recorder.record(record('f-1'));
    recorder.record(record('f-2'));
    await recorder.flush();
    assert.equal(errors.length, 1);
    assert.match(String(errors[0]), /usage ledger batch was not written/);
    other.exec('ALTER TABLE usage_records_away RENAME TO usage_records');
    await recorder.close();
    await ledger.close();
    assert.deepEqual(
      (await ledgerRows()).filter((id) => id.startsWith('f-')),
      ['f-1', 'f-2'],
    );
  });

  it('crosses to its thread only the record’s ledger fields: a record carrying anything else still lands, with its units', async () => {
    const ledger = new UsageRepository(database);
    // A function cannot be copied between threads: sent as it is, this batch would fail on every try.
    const carrying = { ...record('c-1'), units: { searches: 2 }, describe: () => 'not data' };
    await ledger.insertMany([carrying, record('c-2')]);
    await ledger.close();
    const rows = await database.db
      .selectFrom('usage_records')
      .select(['request_id', 'searches', 'pages'])
      .where('request_id', 'like', 'c-%')
      .orderBy('request_id')
      .execute();
    assert.deepEqual(rows, [
      { request_id: 'c-1', searches: 2, pages: 0 },
      { request_id: 'c-2', searches: 0, pages: 0 },
    ]);
  });

  it('writes a batch of many rows whole, every field in its column, and rolls it back whole when one row is refused', async () => {
    const ledger = new UsageRepository(database);
    // 63 rows: the writer inserts them several at a time, then the rest one by one.
    const batch = Array.from({ length: 63 }, (_, index) => ({
      ...record(`m-${String(index).padStart(2, '0')}`),
      promptTokens: index,
      units: { pages: index % 3 },
    }));
    await ledger.insertMany(batch);
    const rows = await database.db
      .selectFrom('usage_records')
      .select(['request_id', 'key_id', 'model', 'endpoint', 'prompt_tokens', 'completion_tokens', 'pages'])
      .where('request_id', 'like', 'm-%')
      .orderBy('request_id')
      .execute();
    assert.deepEqual(
      rows,
      batch.map((one) => ({
        request_id: one.requestId,
        key_id: 'key-a',
        model: 'glm-4.7',
        endpoint: 'chat.completions',
        prompt_tokens: one.promptTokens,
        completion_tokens: 2,
        pages: one.units.pages,
      })),
    );
    // One row the database refuses, in the middle of the first rows written together: none of the batch lands.
    const refused = batch.map((one, index) => ({ ...one, requestId: `n-${one.requestId}`, model: index === 10 ? (null as unknown as string) : one.model }));
    await assert.rejects(ledger.insertMany(refused), /NOT NULL/);
    await ledger.close();
    assert.equal((await ledgerRows()).filter((id) => id.startsWith('n-')).length, 0);
  });

  it('a write transaction that reads first holds the write lock from its start, so another connection’s commit cannot come between', async () => {
    const insertOther = other.prepare("INSERT INTO files (id, owner_key_id, purpose, filename, bytes, created_at) VALUES (?, 'key-x', 'batch', 'a.txt', 1, 0)");
    // A deferred transaction (what Kysely opens): the other connection commits between its read and
    // its write, and its write then fails. This is what the ledger's own connection would do to it.
    await assert.rejects(
      database.db.transaction().execute(async (transaction) => {
        await transaction.selectFrom('files').select('id').execute();
        insertOther.run('other-1');
        await transaction.deleteFrom('files').where('id', '=', 'nothing').execute();
      }),
      /SQLITE_BUSY|database is locked/,
    );
    await writeTransaction(database, async (transaction) => {
      await transaction.selectFrom('files').select('id').execute();
      // The other connection cannot write now: the transaction holds the lock from BEGIN IMMEDIATE.
      assert.throws(() => insertOther.run('other-2'), /database is locked/);
      await transaction.deleteFrom('files').where('id', '=', 'nothing').execute();
    });
    // And a failed one is rolled back, leaving the connection usable.
    await assert.rejects(
      writeTransaction(database, () => Promise.reject(new Error('no'))),
      /no/,
    );
    assert.deepEqual(
      (await database.db.selectFrom('files').select('id').execute()).map((row) => row.id),
      ['other-1'],
    );
  });
});
