import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { StoredFile } from '../../src/core/files/file-store.ts';
import { openDatabase, type Database } from '../../src/store/database.ts';
import { FileRepository } from '../../src/store/file-repository.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { databaseTargets, reportSkippedPostgres } from '../helpers/test-databases.ts';

reportSkippedPostgres();

const start = Date.UTC(2025, 0, 1);

function record(id: string, ownerKeyId: string, secondsAfterStart: number, purpose = 'user_data'): StoredFile {
  return { id, ownerKeyId, purpose, filename: `${id}.csv`, bytes: 10, createdAt: new Date(start + secondsAfterStart * 1000) };
}

for (const target of databaseTargets) {
  describe(`file repository on ${target.name}`, () => {
    let url: string | undefined;
    let dataDir: string;
    let database: Database;
    let files: FileRepository;
    before(async () => {
      url = await target.create();
      dataDir = mkdtempSync(join(tmpdir(), 'file-repository-'));
      database = openDatabase({ databaseUrl: url, dataDir });
      await migrateToLatest(database);
      files = new FileRepository(database);
    });
    after(async () => {
      await database.close();
      await target.drop(url);
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('stores, finds only for the owner, and deletes only for the owner', async () => {
      const file = { ...record('file-own-1', 'key-a', 0), filename: 'glossary 术语.csv', bytes: 104_857_600 };
      assert.equal(await files.insertWithinLimit(file, 100), true);
      assert.deepEqual(await files.find('key-a', file.id), { ...file, state: 'ready' });
      assert.equal(await files.find('key-b', file.id), undefined, "another key's file is not found");
      assert.equal(await files.delete('key-b', file.id), false, 'another key cannot delete it');
      assert.equal(await files.count('key-a'), 1);
      assert.equal(await files.delete('key-a', file.id), true);
      assert.equal(await files.delete('key-a', file.id), false);
      assert.equal(await files.find('key-a', file.id), undefined);
    });

    it('refuses an insert past the limit, also under concurrent inserts, per owner', async () => {
      for (let index = 0; index < 8; index += 1) assert.equal(await files.insertWithinLimit(record(`file-limit-${index}`, 'key-limit', index), 10), true);
      // Six at once for the last two places: exactly two get in.
      const attempts = await Promise.all(
        Array.from({ length: 6 }, (_, index) => files.insertWithinLimit(record(`file-race-${index}`, 'key-limit', 100 + index), 10)),
      );
      assert.equal(attempts.filter(Boolean).length, 2, `results ${JSON.stringify(attempts)}`);
      assert.equal(await files.count('key-limit'), 10);
      assert.equal(await files.insertWithinLimit(record('file-limit-over', 'key-limit', 200), 10), false);
      assert.equal(await files.insertWithinLimit(record('file-other-owner', 'key-other', 0), 10), true, 'the limit is per owner');
    });

    it('lists by creation time in both orders, pages after a cursor (ties by id), filters by purpose', async () => {
      const owner = 'key-list';
      // Two files in the same millisecond: the id breaks the tie.
      const inserted = [
        record('file-l-a', owner, 1),
        record('file-l-c', owner, 2, 'agent'),
        record('file-l-b', owner, 2),
        record('file-l-d', owner, 3),
        record('file-l-e', owner, 4, 'agent'),
      ];
      for (const file of inserted) await files.insertWithinLimit(file, 100);
      await files.insertWithinLimit(record('file-l-other', 'key-list-other', 2), 100);
      const ids = async (query: Parameters<FileRepository['list']>[1]) => (await files.list(owner, query)).map((file) => file.id);

      assert.deepEqual(await ids({ limit: 10, order: 'asc' }), ['file-l-a', 'file-l-b', 'file-l-c', 'file-l-d', 'file-l-e']);
      assert.deepEqual(await ids({ limit: 10, order: 'desc' }), ['file-l-e', 'file-l-d', 'file-l-c', 'file-l-b', 'file-l-a']);
      assert.deepEqual(await ids({ limit: 2, order: 'asc' }), ['file-l-a', 'file-l-b']);
      const cursor = (id: string) => inserted.find((file) => file.id === id) ?? assert.fail(id);
      assert.deepEqual(await ids({ limit: 2, order: 'asc', after: cursor('file-l-b') }), ['file-l-c', 'file-l-d']);
      assert.deepEqual(await ids({ limit: 10, order: 'desc', after: cursor('file-l-c') }), ['file-l-b', 'file-l-a']);
      assert.deepEqual(await ids({ limit: 10, order: 'asc', after: cursor('file-l-e') }), []);
      assert.deepEqual(await ids({ limit: 10, order: 'desc', purpose: 'agent' }), ['file-l-e', 'file-l-c']);
      assert.deepEqual(await ids({ limit: 10, order: 'asc', purpose: 'agent', after: cursor('file-l-c') }), ['file-l-e']);
      assert.deepEqual(await ids({ limit: 10, order: 'asc', purpose: 'batch' }), []);
    });

    it('lists the files of every owner created before a cutoff, oldest first', async () => {
      const cutoff = new Date(Date.UTC(2030, 0, 1));
      await files.insertWithinLimit({ ...record('file-new', 'key-a', 0), createdAt: new Date(cutoff.getTime() + 1) }, 100);
      const old = await files.listCreatedBefore(cutoff, 1000);
      assert.ok(old.length > 5);
      assert.ok(!old.some((file) => file.id === 'file-new'));
      assert.ok(new Set(old.map((file) => file.ownerKeyId)).size > 1, 'every owner');
      const times = old.map((file) => file.createdAt.getTime());
      assert.deepEqual(
        times,
        [...times].sort((first, second) => first - second),
      );
      assert.equal((await files.listCreatedBefore(cutoff, 3)).length, 3);
    });

    it('keeps a pending file out of listings until it is marked ready, counts it, and lists abandoned ones for the sweep', async () => {
      const owner = 'key-pending';
      const pending = record('file-p-1', owner, 10, 'retrieval');
      assert.equal(await files.insertWithinLimit(pending, 10, 'pending'), true);
      assert.equal(await files.insertWithinLimit(record('file-p-2', owner, 11), 10), true);
      const listed = async () => (await files.list(owner, { limit: 10, order: 'asc' })).map((file) => file.id);
      assert.deepEqual(await listed(), ['file-p-2'], 'a pending file is not listed');
      assert.equal(await files.count(owner), 2, 'but it counts against the limit');
      assert.equal((await files.find(owner, pending.id))?.state, 'pending');
      assert.deepEqual(
        (await files.listPendingBefore(new Date(start + 60_000), 10)).map((file) => file.id),
        ['file-p-1'],
      );
      assert.deepEqual(await files.listPendingBefore(new Date(start + 5_000), 10), [], 'none begun before the cutoff');
      assert.equal(await files.markReady('key-other', pending.id), false, "another key's file is not marked");
      assert.equal(await files.markReady(owner, pending.id), true);
      assert.equal(await files.markReady(owner, pending.id), false, 'ready already');
      assert.deepEqual(await listed(), ['file-p-1', 'file-p-2']);
      assert.deepEqual(await files.listPendingBefore(new Date(start + 60_000), 10), []);
    });
  });
}
