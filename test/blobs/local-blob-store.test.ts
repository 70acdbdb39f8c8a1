import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { startBlobSweeper } from '../../src/blobs/blob-sweeper.ts';
import { BlobUrlSigner } from '../../src/blobs/blob-url-signer.ts';
import { isValidBlobKey } from '../../src/blobs/blob-key.ts';
import { LocalBlobStore } from '../../src/blobs/local-blob-store.ts';

const masterKey = Buffer.alloc(32, 7);

/** The sweeper's failure log: no sweep here may fail. */
const failOnLog = (message: string, error?: unknown) => assert.fail(`${message} ${String(error)}`);

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('local blob store', () => {
  let root: string;
  let store: LocalBlobStore;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'model-platform-blobs-'));
    store = new LocalBlobStore(join(root, 'blobs'), new BlobUrlSigner(masterKey, 3600, undefined));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('stores bytes and streams and reads them back with their content type and size', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    assert.deepEqual(await store.put('images/task-1/0.png', png, 'image/png'), { key: 'images/task-1/0.png', contentType: 'image/png', bytes: 7 });
    const video = Buffer.alloc(300_000, 9);
    const streamed = await store.put('videos/task-1/video.mp4', Readable.from([video.subarray(0, 100_000), video.subarray(100_000)]), 'video/mp4');
    assert.equal(streamed.bytes, 300_000);

    const image = await store.get('images/task-1/0.png');
    assert.deepEqual(image?.info, { key: 'images/task-1/0.png', contentType: 'image/png', bytes: 7 });
    assert.deepEqual(await readAll(image.stream), png);
    const read = await store.get('videos/task-1/video.mp4');
    assert.equal(read?.info.contentType, 'video/mp4');
    assert.ok((await readAll(read.stream)).equals(video));
    assert.deepEqual(readdirSync(join(root, 'blobs', 'tmp')), [], 'no temporary file is left behind');
  });

  it('replaces a blob whole, and deletes it', async () => {
    await store.put('images/replace/0.png', Buffer.from('old'), 'image/png');
    await store.put('images/replace/0.png', Buffer.from('newer'), 'image/jpeg');
    const read = await store.get('images/replace/0.png');
    assert.deepEqual(read?.info, { key: 'images/replace/0.png', contentType: 'image/jpeg', bytes: 5 });
    assert.equal((await readAll(read.stream)).toString(), 'newer');
    await store.delete('images/replace/0.png');
    assert.equal(await store.get('images/replace/0.png'), undefined);
    await store.delete('images/replace/0.png');
  });

  it('a failed stream leaves no blob and no temporary file', async () => {
    const failing = new Readable({
      read() {
        this.push(Buffer.alloc(1000));
        this.destroy(new Error('engine connection reset'));
      },
    });
    await assert.rejects(store.put('videos/broken/video.mp4', failing, 'video/mp4'), /connection reset/);
    assert.equal(await store.get('videos/broken/video.mp4'), undefined);
    assert.deepEqual(readdirSync(join(root, 'blobs', 'tmp')), []);
  });

  it('refuses keys that could leave the blob folder', async () => {
    writeFileSync(join(root, 'secret.txt'), 'secret');
    for (const key of ['../secret.txt', '../../etc/passwd', '/etc/passwd', 'images/../../secret.txt', 'a\\b', '.hidden', 'a//b', '', 'a/./b', 'nul\0byte']) {
      assert.equal(isValidBlobKey(key), false, key);
      await assert.rejects(store.put(key, Buffer.from('x'), 'text/plain'), /invalid blob key/, key);
      assert.equal(await store.get(key), undefined, key);
    }
    assert.ok(existsSync(join(root, 'secret.txt')));
    assert.ok(isValidBlobKey('images/20250101abc/0.png'));
  });

  it('the sweeper deletes blobs older than the cutoff and keeps newer ones', async () => {
    await store.put('sweep/old/0.png', Buffer.from('old'), 'image/png');
    await store.put('sweep/new/0.png', Buffer.from('new'), 'image/png');
    const tenDaysAgo = (Date.now() - 10 * 86_400_000) / 1000;
    utimesSync(join(root, 'blobs', 'files', 'sweep', 'old', '0.png'), tenDaysAgo, tenDaysAgo);
    const deleted = await store.deleteOlderThan(Date.now() - 5 * 86_400_000);
    assert.ok(deleted >= 1);
    assert.equal(await store.get('sweep/old/0.png'), undefined);
    const kept = await store.get('sweep/new/0.png');
    assert.equal((await readAll(kept?.stream ?? Readable.from([]))).toString(), 'new');
    assert.ok(!existsSync(join(root, 'blobs', 'files', 'sweep', 'old')), 'emptied folders go too');
  });

  it('the retention sweeper runs at start with the configured days; 0 keeps everything', async () => {
    const age = (key: string, days: number) => {
      const when = (Date.now() - days * 86_400_000) / 1000;
      utimesSync(join(root, 'blobs', 'files', key), when, when);
    };
    await store.put('retention/a.png', Buffer.from('a'), 'image/png');
    age('retention/a.png', 3);
    const keepForever = startBlobSweeper(store, { retentionDays: 0, log: failOnLog });
    await keepForever();
    const kept = await store.get('retention/a.png');
    kept?.stream.destroy();
    assert.ok(kept !== undefined);
    const sweeper = startBlobSweeper(store, { retentionDays: 2, log: failOnLog });
    await sweeper();
    assert.equal(await store.get('retention/a.png'), undefined);
  });
});

describe('signed download URLs', () => {
  const signer = new BlobUrlSigner(masterKey, 600, undefined);
  const now = Date.UTC(2025, 0, 1);

  const parse = (url: string) => {
    const parsed = new URL(url);
    return { path: parsed.pathname, expires: parsed.searchParams.get('expires') ?? undefined, signature: parsed.searchParams.get('signature') ?? undefined };
  };

  it('are absolute URLs on the given origin that verify until they expire', () => {
    const url = signer.url('images/t/0.png', 'http://127.0.0.1:8080', now);
    const { path, expires, signature } = parse(url);
    assert.ok(url.startsWith('http://127.0.0.1:8080/blobs/images/t/0.png?expires='), url);
    assert.equal(path, '/blobs/images/t/0.png');
    assert.equal(Number(expires), now / 1000 + 600);
    assert.equal(signer.verify('images/t/0.png', expires, signature, now), 'valid');
    assert.equal(signer.verify('images/t/0.png', expires, signature, now + 600_000), 'expired');
  });

  it('refuse a changed key, expiry or signature, and another secret', () => {
    const { expires, signature } = parse(signer.url('images/t/0.png', 'http://h', now));
    assert.equal(signer.verify('images/t/1.png', expires, signature, now), 'invalid');
    assert.equal(signer.verify('images/t/0.png', String(Number(expires) + 3600), signature, now), 'invalid');
    const tampered = `${signature?.startsWith('A') === true ? 'B' : 'A'}${signature?.slice(1)}`;
    assert.equal(signer.verify('images/t/0.png', expires, tampered, now), 'invalid');
    assert.equal(signer.verify('images/t/0.png', expires, undefined, now), 'invalid');
    assert.equal(signer.verify('images/t/0.png', 'soon', signature, now), 'invalid');
    const other = new BlobUrlSigner(Buffer.alloc(32, 8), 600, undefined);
    assert.equal(other.verify('images/t/0.png', expires, signature, now), 'invalid');
  });

  it('use the configured public URL over the request origin', () => {
    const behindProxy = new BlobUrlSigner(masterKey, 600, 'https://media.example.com/platform');
    assert.ok(behindProxy.url('images/t/0.png', 'http://10.0.0.5:8080', now).startsWith('https://media.example.com/platform/blobs/images/t/0.png?'));
  });
});
