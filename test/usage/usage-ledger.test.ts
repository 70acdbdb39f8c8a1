import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Migrator, sql } from 'kysely';
import type { UsageRecord } from '../../src/core/usage/usage-record.ts';
import { applyUsageRetention } from '../../src/core/usage/usage-retention.ts';
import { openDatabase, type Database } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { migrations } from '../../src/store/migrations/index.ts';
import { UsageRepository } from '../../src/store/usage-repository.ts';
import { dayMs, dayNumber, utcDay } from '../../src/store/usage/usage-day.ts';
import { listDayPartitions } from '../../src/store/usage/usage-partitions.ts';
import { databaseTargets, reportSkippedPostgres } from '../helpers/test-databases.ts';

reportSkippedPostgres();

const now = Date.now();
const today = dayNumber(now);

function record(overrides: Partial<UsageRecord> & { readonly createdAt: number }): UsageRecord {
  return {
    keyId: 'key-a',
    model: 'glm-4.7',
    endpoint: 'chat.completions',
    requestId: `request-${Math.random().toString(16).slice(2)}`,
    promptTokens: 0,
    completionTokens: 0,
    cachedTokens: 0,
    ...overrides,
  };
}

/** Every summed column of a rollup row at 0. */
const zeros = {
  prompt_tokens: 0,
  completion_tokens: 0,
  cached_tokens: 0,
  pages: 0,
  audio_seconds: 0,
  images: 0,
  videos: 0,
  searches: 0,
  urls_read: 0,
  cost: 0,
};

for (const target of databaseTargets) {
  describe(`usage ledger (${target.name})`, () => {
    const opened: { database: Database; url: string | undefined; dataDir: string }[] = [];
    /** A fresh database with every migration up to `upTo` (all by default). */
    const freshDatabase = async (upTo?: string) => {
      const url = await target.create();
      const dataDir = mkdtempSync(join(tmpdir(), 'model-platform-usage-'));
      const database = openDatabase({ databaseUrl: url, dataDir });
      opened.push({ database, url, dataDir });
      if (upTo === undefined) await migrateToLatest(database);
      else {
        const migrator = new Migrator({ db: database.db, provider: { getMigrations: () => Promise.resolve(migrations) } });
        const result = await migrator.migrateTo(upTo);
        assert.equal(result.error, undefined);
      }
      return database;
    };
    let database: Database;
    let ledger: UsageRepository;
    before(async () => {
      database = await freshDatabase();
      ledger = new UsageRepository(database);
    });
    after(async () => {
      for (const entry of opened) {
        await entry.database.close();
        await target.drop(entry.url);
        rmSync(entry.dataDir, { recursive: true, force: true });
      }
    });

    const dailyRows = (db: Database) =>
      db.db.selectFrom('usage_daily').selectAll().orderBy('day').orderBy('key_id').orderBy('model').orderBy('endpoint').execute();

    it('writes each record with its units and day, and keeps the daily rollups in step batch after batch', async () => {
      const yesterday = now - dayMs;
      await ledger.insertMany([
        record({ promptTokens: 10, completionTokens: 5, cachedTokens: 2, createdAt: now }),
        record({ promptTokens: 1, completionTokens: 1, createdAt: now }),
        record({ model: 'glm-ocr', endpoint: 'layout_parsing', units: { pages: 3 }, createdAt: now }),
        record({ keyId: 'key-b', model: 'my-asr', endpoint: 'audio.transcriptions', units: { audioSeconds: 2.5 }, createdAt: yesterday }),
      ]);
      await ledger.insertMany([
        record({ promptTokens: 100, createdAt: now }),
        record({ keyId: 'key-b', model: 'my-asr', endpoint: 'audio.transcriptions', units: { audioSeconds: 1.25 }, createdAt: yesterday }),
        record({ keyId: 'key-b', model: 'glm-image', endpoint: 'async.images.generations', units: { images: 1 }, createdAt: now }),
        record({ keyId: 'key-b', model: 'search-prime', endpoint: 'web_search', units: { searches: 1 }, createdAt: now }),
        record({ keyId: 'key-b', model: 'web-reader', endpoint: 'reader', units: { urlsRead: 1 }, createdAt: now }),
        record({ keyId: 'key-b', model: 'cogvideox-3', endpoint: 'videos.generations', units: { videos: 1 }, createdAt: now }),
      ]);
      const keyB = await ledger.listForKey('key-b');
      assert.equal(keyB.length, 6);
      assert.deepEqual(keyB[0]?.units, { pages: 0, audioSeconds: 2.5, images: 0, videos: 0, searches: 0, urlsRead: 0 });
      const stored = await database.db.selectFrom('usage_records').select(['day', 'created_at']).execute();
      for (const row of stored) assert.equal(row.day, utcDay(Number(row.created_at)));

      const day = utcDay(now);
      const rollups = (await dailyRows(database)).map((row) => ({ ...row, calls: Number(row.calls) }));
      assert.deepEqual(rollups, [
        { ...zeros, day: utcDay(yesterday), key_id: 'key-b', model: 'my-asr', endpoint: 'audio.transcriptions', calls: 2, audio_seconds: 3.75 },
        {
          ...zeros,
          day,
          key_id: 'key-a',
          model: 'glm-4.7',
          endpoint: 'chat.completions',
          calls: 3,
          prompt_tokens: 111,
          completion_tokens: 6,
          cached_tokens: 2,
        },
        { ...zeros, day, key_id: 'key-a', model: 'glm-ocr', endpoint: 'layout_parsing', calls: 1, pages: 3 },
        { ...zeros, day, key_id: 'key-b', model: 'cogvideox-3', endpoint: 'videos.generations', calls: 1, videos: 1 },
        { ...zeros, day, key_id: 'key-b', model: 'glm-image', endpoint: 'async.images.generations', calls: 1, images: 1 },
        { ...zeros, day, key_id: 'key-b', model: 'search-prime', endpoint: 'web_search', calls: 1, searches: 1 },
        { ...zeros, day, key_id: 'key-b', model: 'web-reader', endpoint: 'reader', calls: 1, urls_read: 1 },
      ]);
    });

    it('keeps text as it was sent: quotes, commas, braces, backslashes, NULL-looking words and other scripts', async () => {
      const odd = { keyId: 'key-odd', model: 'my "model", {v2}', endpoint: 'chat.completions', requestId: 'NULL\\ 请求,"x"}' };
      await ledger.insertMany([record({ ...odd, promptTokens: 7, createdAt: now }), record({ ...odd, promptTokens: 3, createdAt: now })]);
      const stored = await ledger.listForKey('key-odd');
      assert.deepEqual(
        stored.map((row) => [row.model, row.requestId, row.promptTokens]),
        [
          [odd.model, odd.requestId, 7],
          [odd.model, odd.requestId, 3],
        ],
      );
      const rollup = (await dailyRows(database)).find((row) => row.key_id === 'key-odd');
      assert.equal(rollup?.model, odd.model);
      assert.equal(Number(rollup?.calls), 2);
      assert.equal(Number(rollup?.prompt_tokens), 10);
    });

    it('writes a batch whole or not at all, apart from any other transaction of the process', async () => {
      const fresh = await freshDatabase();
      const writer = new UsageRepository(fresh);
      // The second row breaks a NOT NULL column: neither the first row nor any rollup may stay.
      const broken = record({ keyId: 'key-x', createdAt: now });
      await assert.rejects(writer.insertMany([record({ keyId: 'key-x', createdAt: now }), { ...broken, model: null as unknown as string }]));
      assert.deepEqual(await writer.listForKey('key-x'), []);
      assert.deepEqual(await dailyRows(fresh), []);

      // A batch asked while another transaction is open is not made part of it: that one rolls back, the batch stays.
      let release: () => void = () => undefined;
      let started: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      const began = new Promise<void>((resolve) => (started = resolve));
      const other = fresh.db.transaction().execute(async (transaction) => {
        await transaction
          .insertInto('usage_daily')
          .values({ ...zeros, day: utcDay(now), key_id: 'key-y', model: 'glm-4.7', endpoint: 'chat.completions', calls: 1 })
          .execute();
        started();
        await held;
        throw new Error('rolled back on purpose');
      });
      await began;
      const batch = writer.insertMany([record({ keyId: 'key-x', promptTokens: 4, createdAt: now })]);
      release();
      await assert.rejects(other, /rolled back on purpose/);
      await batch;
      assert.deepEqual(
        (await writer.listForKey('key-x')).map((row) => row.promptTokens),
        [4],
      );
      assert.deepEqual(
        (await dailyRows(fresh)).map((row) => [row.key_id, Number(row.calls), Number(row.prompt_tokens)]),
        [['key-x', 1, 4]],
      );
    });

    it('drops whole days past retention (the rollups stay) and prepares the days ahead', async () => {
      const fresh = await freshDatabase();
      const repository = new UsageRepository(fresh);
      const at = (daysAgo: number) => (today - daysAgo) * dayMs + 3_600_000;
      // Days with no partition yet (40 and 31 days back, 20 ahead) are created on demand by the write.
      await repository.insertMany([40, 31, 30, 29, 0, -20].map((daysAgo) => record({ requestId: `ago-${daysAgo}`, promptTokens: 1, createdAt: at(daysAgo) })));
      const dropped = await applyUsageRetention(repository, { retentionDays: 30, now: () => now });
      const kept = (await repository.listForKey('key-a')).map((item) => item.requestId);
      assert.deepEqual(kept, ['ago-30', 'ago-29', 'ago-0', 'ago--20'], 'the days before today-30 are gone, today-30 itself stays');
      const rollupDays = (await dailyRows(fresh)).map((row) => row.day);
      assert.deepEqual(
        rollupDays,
        [40, 31, 30, 29, 0, -20].map((daysAgo) => utcDay(at(daysAgo))),
        'the rollups of dropped days stay',
      );
      if (fresh.dialect === 'postgres') {
        assert.equal(dropped, 2, 'two partitions dropped');
        const partitions = await listDayPartitions(fresh.db);
        assert.equal(partitions[0], today - 30, 'no partition before the first kept day');
        for (let ahead = 0; ahead <= 7; ahead += 1) assert.ok(partitions.includes(today + ahead), `day today+${ahead} prepared`);
        assert.ok(partitions.includes(today + 20));
        // Nothing catches a row of a day without a partition: the writer must create it, as it does.
        const refused = await sql`INSERT INTO usage_records (id, key_id, model, endpoint, request_id, day, created_at)
          VALUES ('x', 'k', 'm', 'e', 'r', '1999-01-01', ${Date.UTC(1999, 0, 1)})`
          .execute(fresh.db)
          .then(
            () => undefined,
            (error: unknown) => error,
          );
        assert.match(String(refused), /no partition/);
      } else {
        assert.equal(dropped, 2, 'two rows deleted');
      }
      assert.equal(await applyUsageRetention(repository, { retentionDays: 30, now: () => now }), 0, 'a second pass finds nothing');
      assert.equal(await applyUsageRetention(repository, { retentionDays: 0, now: () => now + 400 * dayMs }), 0, '0 keeps everything');
      assert.equal((await repository.listForKey('key-a')).length, 4);
    });

    it('two nodes writing batches at once into the same rollups and a new day lose nothing', async () => {
      const fresh = await freshDatabase();
      const second = openDatabase({ databaseUrl: opened.at(-1)?.url, dataDir: opened.at(-1)?.dataDir ?? '' });
      try {
        const nodes = [new UsageRepository(fresh), new UsageRepository(second)];
        const future = (today + 60) * dayMs;
        await Promise.all(
          Array.from({ length: 10 }, (_unused, index) =>
            nodes[index % 2]?.insertMany(
              Array.from({ length: 20 }, (_item, item) =>
                record({ keyId: item % 2 === 0 ? 'key-a' : 'key-b', promptTokens: 1, createdAt: future + index * 1000 + item }),
              ),
            ),
          ),
        );
        const rollups = await dailyRows(fresh);
        assert.deepEqual(
          rollups.map((row) => [row.key_id, Number(row.calls), Number(row.prompt_tokens)]),
          [
            ['key-a', 100, 100],
            ['key-b', 100, 100],
          ],
        );
        const count = await fresh.db
          .selectFrom('usage_records')
          .select((builder) => builder.fn.countAll().as('count'))
          .executeTakeFirstOrThrow();
        assert.equal(Number(count.count), 200);
      } finally {
        await second.close();
      }
    });

    it('migration 0009 keeps the rows of the old ledger, with their day, zero units and rollups', async () => {
      const old = await freshDatabase('0008-key-policies');
      const legacy = [
        {
          id: 'r1',
          key_id: 'key-a',
          model: 'glm-4.7',
          endpoint: 'chat.completions',
          request_id: 'q1',
          prompt_tokens: 7,
          completion_tokens: 3,
          cached_tokens: 1,
          created_at: Date.UTC(2024, 1, 29, 23, 59),
        },
        {
          id: 'r2',
          key_id: 'key-a',
          model: 'glm-4.7',
          endpoint: 'chat.completions',
          request_id: 'q2',
          prompt_tokens: 5,
          completion_tokens: 5,
          cached_tokens: 0,
          created_at: Date.UTC(2024, 1, 29, 1),
        },
        {
          id: 'r3',
          key_id: 'key-a',
          model: 'glm-4.7',
          endpoint: 'agents',
          request_id: 'q3',
          prompt_tokens: 2,
          completion_tokens: 2,
          cached_tokens: 0,
          created_at: Date.UTC(2024, 2, 1, 0, 0),
        },
      ];
      for (const row of legacy) {
        await sql`INSERT INTO usage_records (id, key_id, model, endpoint, request_id, prompt_tokens, completion_tokens, cached_tokens, created_at)
          VALUES (${row.id}, ${row.key_id}, ${row.model}, ${row.endpoint}, ${row.request_id}, ${row.prompt_tokens}, ${row.completion_tokens}, ${row.cached_tokens}, ${row.created_at})`.execute(
          old.db,
        );
      }
      // Every migration after 0008 runs, the ledger's first.
      const pending = Object.keys(migrations).filter((name) => name >= '0009');
      assert.equal(pending[0], '0009-usage-ledger');
      assert.deepEqual(await migrateToLatest(old), pending);
      const rows = await old.db.selectFrom('usage_records').selectAll().orderBy('created_at').execute();
      assert.deepEqual(
        rows.map((row) => [row.id, row.day, Number(row.prompt_tokens), Number(row.pages), Number(row.audio_seconds), Number(row.urls_read)]),
        [
          ['r2', '2024-02-29', 5, 0, 0, 0],
          ['r1', '2024-02-29', 7, 0, 0, 0],
          ['r3', '2024-03-01', 2, 0, 0, 0],
        ],
      );
      assert.deepEqual(
        (await dailyRows(old)).map((row) => [
          row.day,
          row.endpoint,
          Number(row.calls),
          Number(row.prompt_tokens),
          Number(row.completion_tokens),
          Number(row.cached_tokens),
        ]),
        [
          ['2024-02-29', 'chat.completions', 2, 12, 8, 1],
          ['2024-03-01', 'agents', 1, 2, 2, 0],
        ],
      );
      // The migrated ledger takes new batches like a fresh one.
      await new UsageRepository(old).insertMany([record({ promptTokens: 1, createdAt: Date.UTC(2024, 1, 29, 12) })]);
      assert.equal(Number((await dailyRows(old))[0]?.calls), 3);
    });
  });
}
