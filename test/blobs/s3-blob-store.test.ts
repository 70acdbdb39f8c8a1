import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import S3rver from 's3rver';
import { S3BlobStore } from '../../src/blobs/s3-blob-store.ts';
import type { S3Settings } from '../../src/core/config/settings.ts';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('S3 blob store (on s3rver)', () => {
  let directory: string;
  let server: S3rver;
  let settings: S3Settings;
  let store: S3BlobStore;

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'model-platform-s3rver-'));
    server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: 'media' }] });
    const address = await server.run();
    // s3rver checks signatures against its fixed credentials.
    settings = {
      bucket: 'media',
      endpoint: `http://127.0.0.1:${address.port}`,
      region: 'us-east-1',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      publicEndpoint: undefined,
    };
    store = new S3BlobStore(settings, 900, { partBytes: 5 * 1024 * 1024 });
  });
  after(async () => {
    await store.close();
    await server.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('stores bytes and reads them back with their content type and size', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]);
    assert.deepEqual(await store.put('images/t1/0.png', png, 'image/png'), { key: 'images/t1/0.png', contentType: 'image/png', bytes: 8 });
    const read = await store.get('images/t1/0.png');
    assert.deepEqual(read?.info, { key: 'images/t1/0.png', contentType: 'image/png', bytes: 8 });
    assert.deepEqual(await readAll(read.stream), png);
  });

  it('streams a small stream as one object and a large one in parts, byte for byte', async () => {
    const small = Buffer.from('a short clip');
    assert.equal((await store.put('videos/t2/small.mp4', Readable.from([small]), 'video/mp4')).bytes, small.byteLength);
    const large = Buffer.alloc(11 * 1024 * 1024 + 123);
    for (let index = 0; index < large.length; index += 4096) large[index] = index % 251;
    const chunks = Array.from({ length: Math.ceil(large.length / 65_536) }, (_, index) => large.subarray(index * 65_536, (index + 1) * 65_536));
    assert.equal((await store.put('videos/t2/large.mp4', Readable.from(chunks), 'video/mp4')).bytes, large.byteLength);
    const read = await store.get('videos/t2/large.mp4');
    assert.equal(read?.info.contentType, 'video/mp4');
    assert.equal(read.info.bytes, large.byteLength);
    assert.equal(sha(await readAll(read.stream)), sha(large));
    const readSmall = await store.get('videos/t2/small.mp4');
    assert.equal((await readAll(readSmall?.stream ?? Readable.from([]))).toString(), 'a short clip');
  });

  // s3rver does not check query signatures, so refusing a tampered URL is S3's part, not tested here.
  it('gives a presigned, expiring URL that downloads the blob over HTTP', async () => {
    await store.put('images/t3/0.png', Buffer.from('presigned bytes'), 'image/png');
    const url = await store.downloadUrl('images/t3/0.png');
    assert.ok(url.startsWith(`${settings.endpoint}/media/images/t3/0.png?`), url);
    const query = new URL(url).searchParams;
    assert.equal(query.get('X-Amz-Expires'), '900');
    assert.match(query.get('X-Amz-Credential') ?? '', /^S3RVER\//);
    assert.match(query.get('X-Amz-Signature') ?? '', /^[0-9a-f]{64}$/);
    const response = await fetch(url);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'image/png');
    assert.equal(await response.text(), 'presigned bytes');
  });

  it('presigns for the public endpoint when one is configured', async () => {
    const publicStore = new S3BlobStore({ ...settings, publicEndpoint: 'https://media.example.com' }, 60);
    try {
      assert.ok((await publicStore.downloadUrl('images/t3/0.png')).startsWith('https://media.example.com/media/images/t3/0.png?'));
    } finally {
      await publicStore.close();
    }
  });

  it('answers undefined for a missing blob; deletes; refuses bad keys', async () => {
    assert.equal(await store.get('images/none/0.png'), undefined);
    await store.put('images/t4/0.png', Buffer.from('x'), 'image/png');
    await store.delete('images/t4/0.png');
    assert.equal(await store.get('images/t4/0.png'), undefined);
    await assert.rejects(store.put('../escape', Buffer.from('x'), 'text/plain'), /invalid blob key/);
  });

  it('the sweeper deletes what is older than the cutoff only', async () => {
    await store.put('sweep/a.png', Buffer.from('a'), 'image/png');
    assert.equal(await store.deleteOlderThan(Date.now() - 3_600_000), 0);
    const kept = await store.get('sweep/a.png');
    assert.equal((await readAll(kept?.stream ?? Readable.from([]))).toString(), 'a');
    const deleted = await store.deleteOlderThan(Date.now() + 60_000);
    assert.ok(deleted >= 1);
    assert.equal(await store.get('sweep/a.png'), undefined);
  });
});
