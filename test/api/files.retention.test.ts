import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { BlobUrlSigner } from '../../src/blobs/blob-url-signer.ts';
import { LocalBlobStore } from '../../src/blobs/local-blob-store.ts';
import { ApiError } from '../../src/core/errors/api-error.ts';
import { BlobFileStore } from '../../src/core/files/blob-file-store.ts';
import { startFileRetentionSweeper } from '../../src/core/files/file-retention-sweeper.ts';
import { openDatabase, type Database } from '../../src/store/database.ts';
import { FileRepository } from '../../src/store/file-repository.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { encodeForm } from '../helpers/multipart-form.ts';
import { startTestPlatform } from '../helpers/test-platform.ts';

const day = 86_400_000;

function listFolder(folder: string): string[] {
  return existsSync(folder) ? readdirSync(folder).sort() : [];
}

async function until(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('file store: retention and limits (clock injected)', () => {
  let root: string;
  let database: Database;
  let blobs: LocalBlobStore;
  let clock: number;
  let files: BlobFileStore;
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'file-store-'));
    database = openDatabase({ databaseUrl: undefined, dataDir: root });
    await migrateToLatest(database);
    blobs = new LocalBlobStore(join(root, 'blobs'), new BlobUrlSigner(Buffer.alloc(32, 1), 3600, undefined));
    clock = Date.UTC(2025, 0, 1);
    files = new BlobFileStore(new FileRepository(database), blobs, { now: () => clock, maxFileBytes: 1000, maxFilesPerKey: 3 });
  });
  after(async () => {
    await database.close();
    rmSync(root, { recursive: true, force: true });
  });

  const save = (owner: string, text: string) =>
    files.save(owner, { purpose: 'user_data', filename: `${text}.txt`, content: Readable.from([Buffer.from(text)]) });

  it('the sweep deletes files older than 180 days (record and bytes) and keeps younger ones', async () => {
    const start = clock;
    const old = await save('key-a', 'old');
    clock = start + 2 * day;
    const young = await save('key-b', 'young');
    assert.equal(old.createdAt.getTime(), start);
    assert.deepEqual(listFolder(join(root, 'blobs', 'files', 'files')), [old.id, young.id].sort());

    // 181 days after the first upload, 179 after the second.
    clock = start + 181 * day;
    const stop = startFileRetentionSweeper(files, {
      now: () => clock,
      intervalMs: 60_000,
      log: (message, error) => assert.fail(`${message} ${String(error)}`),
    });
    await stop();
    assert.equal(await files.get('key-a', old.id), undefined, 'the old record is gone');
    assert.equal(await blobs.get(`files/${old.id}`), undefined, 'the old bytes are gone');
    assert.deepEqual(await files.read('key-b', young.id), Buffer.from('young'), 'the younger file stays');
    assert.deepEqual(listFolder(join(root, 'blobs', 'files', 'files')), [young.id]);

    clock = start + 2 * day + 181 * day;
    assert.equal(await files.deleteCreatedBefore(clock - 180 * day), 1);
    assert.equal(await files.get('key-b', young.id), undefined);
  });

  it('aborts a stream past the size limit: 1214, nothing stored, no partial file', async () => {
    const tooLong = Readable.from([Buffer.alloc(600, 'a'), Buffer.alloc(401, 'b')]);
    await assert.rejects(
      files.save('key-size', { purpose: 'user_data', filename: 'big.txt', content: tooLong }),
      (error: unknown) => error instanceof ApiError && error.code === '1214' && error.message.includes('1000 bytes'),
    );
    assert.equal((await files.list('key-size', { limit: 10, order: 'asc' })).files.length, 0);
    assert.deepEqual(listFolder(join(root, 'blobs', 'files', 'files')), []);
    assert.deepEqual(listFolder(join(root, 'blobs', 'tmp')), []);
    const exact = await files.save('key-size', { purpose: 'user_data', filename: 'exact.txt', content: Readable.from([Buffer.alloc(1000)]) });
    assert.equal(exact.bytes, 1000);
    await files.delete('key-size', exact.id);
  });

  it('a commit that loses the race for the last place deletes its bytes and says so', async () => {
    const staged = await Promise.all(
      ['one', 'two', 'three', 'four'].map((text) => files.stage('key-race', { filename: `${text}.txt`, content: Readable.from([Buffer.from(text)]) })),
    );
    const results = await Promise.allSettled(staged.map((file) => file.commit('user_data')));
    assert.equal(results.filter((result) => result.status === 'fulfilled').length, 3);
    const refused = results.find((result) => result.status === 'rejected');
    assert.ok(refused?.reason instanceof ApiError && refused.reason.message.includes('3 files'));
    assert.equal(listFolder(join(root, 'blobs', 'files', 'files')).length, 3, 'the loser left no bytes');
    await assert.rejects(files.stage('key-race', { filename: 'five.txt', content: Readable.from([]) }), /3 files/);
  });
});

describe('platform: the retention sweepers started by startWorkers()', () => {
  it('delete an upload older than 180 days, keep a recent one, and the media sweeper leaves uploads alone', async () => {
    const test = await startTestPlatform();
    try {
      const upload = async (name: string) => {
        const { payload, contentType } = await encodeForm([
          ['purpose', 'user_data'],
          ['file', Buffer.from(name), name],
        ]);
        const response = await test.app.inject({
          method: 'POST',
          url: '/paas/v4/files',
          headers: { authorization: test.authorization, 'content-type': contentType },
          payload,
        });
        assert.equal(response.statusCode, 200, response.body);
        return (response.json() as { id: string }).id;
      };
      const oldId = await upload('old.txt');
      const recentId = await upload('recent.txt');
      const database = test.platform.database.db;
      await database
        .updateTable('files')
        .set({ created_at: Date.now() - 181 * day })
        .where('id', '=', oldId)
        .execute();
      await database
        .updateTable('files')
        .set({ created_at: Date.now() - 179 * day })
        .where('id', '=', recentId)
        .execute();
      // Both blobs written long ago, past the 30-day media retention: only the file sweeper may decide.
      const blobFolder = join(test.platform.settings.dataDir, 'blobs', 'files');
      const longAgo = new Date(Date.now() - 179 * day);
      for (const id of [oldId, recentId]) utimesSync(join(blobFolder, 'files', id), longAgo, longAgo);
      await test.platform.blobs.put('images/task-1/0.png', Buffer.from('media'), 'image/png');
      utimesSync(join(blobFolder, 'images', 'task-1', '0.png'), longAgo, longAgo);

      test.platform.startWorkers();
      await until(async () => (await test.platform.files.get(test.key.split('.')[0] ?? '', oldId)) === undefined);
      await until(async () => (await test.platform.blobs.get('images/task-1/0.png')) === undefined);
      assert.deepEqual(listFolder(join(blobFolder, 'files')), [recentId], 'the old upload bytes are gone, the recent ones stay');
      const content = await test.app.inject({ method: 'GET', url: `/paas/v4/files/${recentId}/content`, headers: { authorization: test.authorization } });
      assert.equal(content.body, 'recent.txt');
    } finally {
      await test.close();
    }
  });
});
