import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { LocalDisk } from '../../src/blobs/local-disk.ts';
import { formatApiKey } from '../../src/core/auth/api-key.ts';
import { readSettings } from '../../src/core/config/settings.ts';
import { databaseDiskCondition } from '../../src/store/disk-full-dialect.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { startFakeOpenAiImagesServer, type FakeOpenAiImagesServer } from '../helpers/fake-openai-images-server.ts';
import { download, startMediaTestPlatform, waitForTask } from '../helpers/media-test-platform.ts';
import { samplePng } from '../helpers/media-samples.ts';
import { postForm } from '../helpers/multipart-form.ts';
import { postJson, type TestPlatform } from '../helpers/test-platform.ts';
import { freePort } from '../tasks/task-test-kit.ts';
import { platformWithEnvironment, type EnvironmentPlatform } from '../metrics/platform-with-environment.ts';

const blockBytes = 4096;

/**
 * A local disk with `remaining` bytes of room: writes go to the real files until the room is used
 * up, then fail with ENOSPC as the kernel's do, leaving the part that fitted on disk (which the
 * store must remove). Its free-space reading follows the same room.
 */
class FillingDisk implements LocalDisk {
  remaining = Number.POSITIVE_INFINITY;

  fill(roomBytes = 0): void {
    this.remaining = roomBytes;
  }

  free(): void {
    this.remaining = Number.POSITIVE_INFINITY;
  }

  readonly createWriteStream = (path: string): Writable => {
    const file = createWriteStream(path);
    return new Writable({
      write: (chunk: Buffer, _encoding, callback) => {
        if (chunk.byteLength <= this.remaining) {
          this.remaining -= chunk.byteLength;
          file.write(chunk, callback);
          return;
        }
        const fits = chunk.subarray(0, this.remaining);
        this.remaining = 0;
        file.write(fits, () => callback(noSpace(path)));
      },
      final: (callback) => {
        file.once('close', () => callback());
        file.once('error', callback);
        file.end();
      },
      destroy: (error, callback) => {
        file.destroy();
        callback(error);
      },
    });
  };

  readonly readSpace = async (): Promise<{ bavail: number; bsize: number }> => ({
    bavail: Number.isFinite(this.remaining) ? Math.floor(this.remaining / blockBytes) : 1e9,
    bsize: blockBytes,
  });
}

/** The error Node gives for a write on a full disk (with the path, which must never reach a caller). */
function noSpace(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOSPC: no space left on device, write '${path}'`), { code: 'ENOSPC', errno: -28, syscall: 'write', path });
}

interface ReadyBody {
  status: string;
  checks: Record<string, string | { error: string }>;
  error?: { code: string; message: string };
}

type FullDiskPlatform = TestPlatform & { readonly dataDir: string };

/** The real platform (SQLite, local blobs, media task handlers, workers running) on a disk the test fills. */
async function startPlatform(disk: LocalDisk, images: FakeOpenAiImagesServer, environment: NodeJS.ProcessEnv = {}): Promise<FullDiskPlatform> {
  return startMediaTestPlatform(
    { models: { 'glm-image': { backend: 'openai-images', baseUrl: images.baseUrl, upstreamModel: 'dall-e-3' } } },
    { environment, platform: { disk, taskTuning: { retryMaxMs: 50, maxAttempts: 2 } } },
  );
}

function listFiles(test: TestPlatform) {
  return test.app.inject({ method: 'GET', url: '/paas/v4/files', headers: { authorization: test.authorization } });
}

/** Every file under `folder`, relative (none when it does not exist). */
function filesUnder(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(folder.length + 1));
}

/** The caller learns the condition, never where or how: no path, no stack, no errno text. */
function assertTellsNothingInternal(body: string, dataDir: string): void {
  assert.ok(!body.includes(dataDir), `no path in ${body}`);
  assert.ok(!body.includes(tmpdir()), `no path in ${body}`);
  assert.doesNotMatch(body, /\n\s+at |ENOSPC|no space left on device/, `no stack or errno text in ${body}`);
}

async function readyz(test: TestPlatform): Promise<{ status: number; body: ReadyBody }> {
  const response = await test.app.inject({ method: 'GET', url: '/readyz' });
  return { status: response.statusCode, body: response.json() as ReadyBody };
}

describe('a full data disk (ENOSPC injected in the local disk)', () => {
  const disk = new FillingDisk();
  let images: FakeOpenAiImagesServer;
  let test: FullDiskPlatform;
  let png: Buffer;

  before(async () => {
    images = await startFakeOpenAiImagesServer();
    test = await startPlatform(disk, images);
    png = await samplePng(40, 30);
  });
  after(async () => {
    await test.close();
    await images.close();
  });

  it('refuses an upload with 503 naming the full storage, keeps no record and no bytes, and takes it again once space is freed', async () => {
    const upload = () =>
      postForm(test, '/paas/v4/files', [
        ['purpose', 'agent'],
        ['file', Buffer.alloc(200_000, 7), 'glossary.csv', 'text/csv'],
      ]);
    disk.fill(50_000);
    const refused = await upload();
    assertPlatformError(refused, { status: 503, code: '503', mentions: ['storage is full'] });
    assertTellsNothingInternal(refused.body, test.dataDir);
    const listed = await listFiles(test);
    assert.equal(listed.statusCode, 200, listed.body);
    assert.deepEqual((listed.json() as { data: unknown[] }).data, [], 'the failed upload is not listed');
    assert.deepEqual(filesUnder(join(test.dataDir, 'blobs', 'files')), [], 'no bytes of it are kept');
    assert.deepEqual(filesUnder(join(test.dataDir, 'blobs', 'tmp')), [], 'the part that fitted is removed');

    disk.free();
    const accepted = await upload();
    assert.equal(accepted.statusCode, 200, accepted.body);
    const id = (accepted.json() as { id: string }).id;
    const content = await test.app.inject({ method: 'GET', url: `/paas/v4/files/${id}/content`, headers: { authorization: test.authorization } });
    assert.equal(content.rawPayload.byteLength, 200_000);
    assert.deepEqual(
      (await listFiles(test)).json().data.map((file: { id: string }) => file.id),
      [id],
    );
  });

  it('ends an image task FAIL with the storage reason, leaves an earlier task whole, and runs the next once space is freed', async () => {
    images.reply({ kind: 'b64', images: [png] });
    const earlier = await postJson(test, '/paas/v4/async/images/generations', { model: 'glm-image', prompt: 'before the disk filled' });
    assert.equal(earlier.statusCode, 200, earlier.body);
    const earlierDone = await waitForTask(test, (earlier.json() as { id: string }).id);
    assert.equal(earlierDone.task_status, 'SUCCESS', JSON.stringify(earlierDone));

    disk.fill(100);
    // One reply per attempt: the write is retried (503 is retryable), then the task fails for good.
    images.reply({ kind: 'b64', images: [png] }, { kind: 'b64', images: [png] });
    const submitted = await postJson(test, '/paas/v4/async/images/generations', { model: 'glm-image', prompt: 'while the disk is full' });
    assert.equal(submitted.statusCode, 200, submitted.body);
    const failed = await waitForTask(test, (submitted.json() as { id: string }).id);
    assert.equal(failed.task_status, 'FAIL', JSON.stringify(failed));
    assert.equal(failed.error?.code, '503');
    assert.match(failed.error?.message ?? '', /storage is full/);
    assertTellsNothingInternal(JSON.stringify(failed), test.dataDir);
    assert.equal(images.requests.length, 3, 'the failed write was tried again once');
    assert.deepEqual(filesUnder(join(test.dataDir, 'blobs', 'tmp')), [], 'no partial image is left');

    const stillThere = await waitForTask(test, earlierDone.id);
    assert.equal(stillThere.task_status, 'SUCCESS');
    assert.deepEqual((await download(test, stillThere.image_result?.[0]?.url ?? '')).bytes, png, "the earlier task's image is intact");

    disk.free();
    images.reply({ kind: 'b64', images: [png] });
    const later = await postJson(test, '/paas/v4/async/images/generations', { model: 'glm-image', prompt: 'after space was freed' });
    const laterDone = await waitForTask(test, (later.json() as { id: string }).id);
    assert.equal(laterDone.task_status, 'SUCCESS', JSON.stringify(laterDone));
    assert.deepEqual((await download(test, laterDone.image_result?.[0]?.url ?? '')).bytes, png);
  });

  it('/readyz answers 503 naming the disk while free space is under the minimum, and 200 once it is freed', async () => {
    disk.free();
    const ready = await readyz(test);
    assert.equal(ready.status, 200, JSON.stringify(ready.body));
    assert.equal(ready.body.checks['disk'], 'ok');

    disk.fill(100 * 1024 * 1024);
    const low = await readyz(test);
    assert.equal(low.status, 503, JSON.stringify(low.body));
    assert.equal(low.body.status, 'not ready');
    assert.match(JSON.stringify(low.body.checks['disk']), /data disk has 100 MB free, less than the minimum of 256 MB/);
    assert.match(low.body.error?.message ?? '', /^Not ready: disk: the data disk has 100 MB free/);
    assert.equal(low.body.checks['database'], 'ok');
    assertTellsNothingInternal(JSON.stringify(low.body), test.dataDir);

    disk.free();
    assert.equal((await readyz(test)).status, 200);
  });
});

describe('the minimum free space is a setting', () => {
  it('MODEL_PLATFORM_MIN_FREE_DISK_MB moves the threshold; 0 turns it off; nonsense is refused', async () => {
    assert.equal(readSettings({}).minFreeDiskMegabytes, 256);
    assert.equal(readSettings({ MODEL_PLATFORM_MIN_FREE_DISK_MB: '0' }).minFreeDiskMegabytes, 0);
    assert.throws(() => readSettings({ MODEL_PLATFORM_MIN_FREE_DISK_MB: '-1' }), /MODEL_PLATFORM_MIN_FREE_DISK_MB/);
    const disk = new FillingDisk();
    const images = await startFakeOpenAiImagesServer();
    const test = await startPlatform(disk, images, { MODEL_PLATFORM_MIN_FREE_DISK_MB: '10' });
    try {
      disk.fill(20 * 1024 * 1024);
      assert.equal((await readyz(test)).status, 200);
      disk.fill(5 * 1024 * 1024);
      const low = await readyz(test);
      assert.equal(low.status, 503);
      assert.match(JSON.stringify(low.body.checks['disk']), /5 MB free, less than the minimum of 10 MB/);
    } finally {
      await test.close();
      await images.close();
    }
  });
});

describe('a full database (SQLITE_FULL)', () => {
  let images: FakeOpenAiImagesServer;
  let test: FullDiskPlatform;

  before(async () => {
    images = await startFakeOpenAiImagesServer();
    test = await startPlatform(new FillingDisk(), images);
  });
  after(async () => {
    await test.close();
    await images.close();
  });

  /** Makes SQLite refuse to grow the file (a real SQLITE_FULL), and a filler table take every page left. */
  function fillDatabase(): () => void {
    const sqlite = test.platform.database.sqlite;
    assert.ok(sqlite !== undefined);
    sqlite.exec('CREATE TABLE IF NOT EXISTS disk_filler (bytes BLOB)');
    const pages = sqlite.pragma('page_count', { simple: true }) as number;
    sqlite.pragma(`max_page_count = ${pages + 4}`);
    const insert = sqlite.prepare('INSERT INTO disk_filler (bytes) VALUES (?)');
    assert.throws(() => {
      for (let row = 0; row < 1_000; row += 1) insert.run(Buffer.alloc(2_000, 1));
    }, /database or disk is full/);
    return () => {
      sqlite.exec('DROP TABLE disk_filler');
      sqlite.pragma('max_page_count = 1073741823');
    };
  }

  it('answers a task submission with 503 naming the full storage instead of a bare 500, and takes it once space is freed', async () => {
    const freeSpace = fillDatabase();
    try {
      // A request too large for the pages left: its row needs pages the database may not add.
      const refused = await postJson(test, '/paas/v4/async/images/generations', { model: 'glm-image', prompt: 'p'.repeat(40_000) });
      assertPlatformError(refused, { status: 503, code: '503', mentions: ['storage is full'] });
      assertTellsNothingInternal(refused.body, test.dataDir);
      assert.doesNotMatch(refused.body, /SQLITE|database or disk/);
    } finally {
      freeSpace();
    }
    images.reply({ kind: 'b64', images: [await samplePng(8, 8)] });
    const accepted = await postJson(test, '/paas/v4/async/images/generations', { model: 'glm-image', prompt: 'p'.repeat(40_000) });
    assert.equal(accepted.statusCode, 200, accepted.body);
    assert.equal((await waitForTask(test, (accepted.json() as { id: string }).id)).task_status, 'SUCCESS');
  });

  it('an upload whose record cannot be written answers 503 and keeps neither record nor bytes', async () => {
    const before = ((await listFiles(test)).json() as { data: { id: string }[] }).data.length;
    const freeSpace = fillDatabase();
    let refused;
    try {
      // Small records fit the pages there are until one needs a new page; that upload must fail cleanly.
      for (let attempt = 0; attempt < 90 && refused === undefined; attempt += 1) {
        const response = await postForm(test, '/paas/v4/files', [
          ['purpose', 'agent'],
          ['file', Buffer.from(`row ${attempt}`), `terms-${'x'.repeat(200)}.txt`, 'text/plain'],
        ]);
        if (response.statusCode !== 200) refused = response;
      }
    } finally {
      freeSpace();
    }
    assert.ok(refused !== undefined, 'the database filled up');
    assertPlatformError(refused, { status: 503, code: '503', mentions: ['storage is full'] });
    const listed = ((await listFiles(test)).json() as { data: { id: string }[] }).data;
    assert.ok(listed.length > before);
    const stored = filesUnder(join(test.dataDir, 'blobs', 'files', 'files')).sort();
    assert.deepEqual(stored, listed.map((file) => file.id).sort(), 'bytes are kept exactly for the listed files');
  });

  it('recognises PostgreSQL disk_full (53100) and SQLite SQLITE_FULL, and nothing else', () => {
    assert.equal(databaseDiskCondition({ code: '53100', message: 'could not extend file "base/16384/16385": No space left on device' }), 'full');
    assert.equal(databaseDiskCondition({ code: 'SQLITE_FULL' }), 'full');
    assert.equal(databaseDiskCondition({ code: '23505' }), undefined);
    assert.equal(databaseDiskCondition(new Error('x')), undefined);
  });
});

/** A loopback "S3" that answers every request 500 with S3's InternalError body. */
async function startFailingS3(): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const server: Server = createServer((request, response) => {
    requests += 1;
    request.resume();
    response.writeHead(500, { 'content-type': 'application/xml' });
    response.end(
      '<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>We encountered an internal error at /var/lib/s3/disk1.</Message></Error>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function s3Environment(endpoint: string): NodeJS.ProcessEnv {
  return { S3_BUCKET: 'media', S3_ENDPOINT: endpoint, S3_ACCESS_KEY_ID: 'key', S3_SECRET_ACCESS_KEY: 'secret' };
}

async function withKey(environment: EnvironmentPlatform): Promise<TestPlatform> {
  const key = formatApiKey(await environment.platform.keys.create({ name: 's3' }));
  return {
    app: environment.app,
    platform: environment.platform,
    key,
    authorization: `Bearer ${key}`,
    contract: environment.contract,
    close: () => environment.close(),
  };
}

describe('an unavailable object store (S3)', () => {
  async function assertUnavailable(test: TestPlatform, reason: RegExp): Promise<void> {
    const refused = await postForm(test, '/paas/v4/files', [
      ['purpose', 'agent'],
      ['file', Buffer.alloc(1_000, 1), 'terms.txt', 'text/plain'],
    ]);
    assertPlatformError(refused, { status: 503, code: '503', mentions: ['object store is unavailable'] });
    assert.match(refused.body, reason);
    assert.doesNotMatch(refused.body, /127\.0\.0\.1|\/var\/lib|internal error at/, `no address or upstream text in ${refused.body}`);
    const listed = await listFiles(test);
    assert.deepEqual((listed.json() as { data: unknown[] }).data, [], 'the failed upload is not listed');
    const ready = await readyz(test);
    assert.equal(ready.status, 503, JSON.stringify(ready.body));
    assert.equal(ready.body.checks['database'], 'ok');
    assert.match(JSON.stringify(ready.body.checks['objectStore']), /object store is unavailable/);
    assert.match(ready.body.error?.message ?? '', /objectStore: The object store is unavailable/);
  }

  it('answers uploads 503 naming the object store, and /readyz 503, when the store answers 500', async () => {
    const s3 = await startFailingS3();
    const test = await withKey(await platformWithEnvironment(s3Environment(s3.url)));
    try {
      await assertUnavailable(test, /HTTP 500/);
      assert.ok(s3.requests() > 0);
    } finally {
      await test.close();
      await s3.close();
    }
  });

  it('answers uploads 503 naming the object store, and /readyz 503, when nothing listens at its address', async () => {
    const test = await withKey(await platformWithEnvironment(s3Environment(`http://127.0.0.1:${await freePort()}`)));
    try {
      await assertUnavailable(test, /ECONNREFUSED/);
    } finally {
      await test.close();
    }
  });
});

/** Whether this process may mount a tmpfs (root on Linux, and a container that allows it). */
function canMountTmpfs(): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const probe = mkdtempSync(join(tmpdir(), 'model-platform-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

describe('a real full disk (a small tmpfs as the data dir)', { skip: canMountTmpfs() ? false : 'mounting a tmpfs is refused here' }, () => {
  it('refuses uploads with 503 while the tmpfs is full, /readyz names the disk, and both recover once space is freed', async () => {
    const mountPoint = mkdtempSync(join(tmpdir(), 'model-platform-tmpfs-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mountPoint]);
    let test: EnvironmentPlatform | undefined;
    try {
      const dataDir = join(mountPoint, 'data');
      mkdirSync(dataDir);
      test = await platformWithEnvironment({ MODEL_PLATFORM_DATA_DIR: dataDir, MODEL_PLATFORM_MIN_FREE_DISK_MB: '2' });
      const client = await withKey(test);
      const filler = join(mountPoint, 'filler');
      fillUp(filler);

      const refused = await postForm(client, '/paas/v4/files', [
        ['purpose', 'agent'],
        ['file', Buffer.alloc(1024 * 1024, 3), 'big.bin'],
      ]);
      assertPlatformError(refused, { status: 503, code: '503', mentions: ['storage is full'] });
      assertTellsNothingInternal(refused.body, mountPoint);
      assert.deepEqual(filesUnder(join(dataDir, 'blobs', 'files')), []);
      assert.deepEqual(filesUnder(join(dataDir, 'blobs', 'tmp')), []);
      const low = await readyz(client);
      assert.equal(low.status, 503, JSON.stringify(low.body));
      assert.match(low.body.error?.message ?? '', /disk: the data disk has 0 MB free/);

      rmSync(filler);
      assert.equal((await readyz(client)).status, 200);
      const accepted = await postForm(client, '/paas/v4/files', [
        ['purpose', 'agent'],
        ['file', Buffer.alloc(1024 * 1024, 3), 'big.bin'],
      ]);
      assert.equal(accepted.statusCode, 200, accepted.body);
    } finally {
      await test?.close();
      execFileSync('umount', [mountPoint]);
      rmSync(mountPoint, { recursive: true, force: true });
    }
  });
});

/** Writes `path` until the file system refuses (ENOSPC). */
function fillUp(path: string): void {
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeFileSync(path, chunk, { flag: 'a' });
  } catch (error) {
    assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC');
  }
}
