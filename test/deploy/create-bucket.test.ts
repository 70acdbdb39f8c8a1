import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

const script = resolve(import.meta.dirname, '../../deploy/create-bucket.mjs');

/** Runs deploy/create-bucket.mjs with only `environment` (and PATH), as compose's one-shot service does. */
function createBucket(environment: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [script], { env: { PATH: process.env['PATH'], ...environment } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, output });
    });
  });
}

describe('deploy/create-bucket.mjs: the bucket the nodes need, made from their own S3 settings', () => {
  it('creates the bucket once, finds it the next time, and stops at once on wrong keys', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'model-platform-create-bucket-'));
    const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
    const { port } = await server.run();
    // s3rver checks signatures against its fixed credentials.
    const settings = {
      S3_BUCKET: 'model-platform',
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
    };
    const client = new S3Client({
      endpoint: settings.S3_ENDPOINT,
      region: settings.S3_REGION,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    try {
      await assert.rejects(client.send(new HeadBucketCommand({ Bucket: 'model-platform' })), 'no bucket before');
      const first = await createBucket(settings);
      assert.equal(first.code, 0, first.output);
      assert.match(first.output, /created model-platform/);
      await client.send(new HeadBucketCommand({ Bucket: 'model-platform' }));

      const again = await createBucket(settings);
      assert.equal(again.code, 0, again.output);
      assert.match(again.output, /model-platform exists/);

      const started = Date.now();
      // s3rver checks the access key id of a HEAD, not its signature.
      const refused = await createBucket({ ...settings, S3_ACCESS_KEY_ID: 'someone-else', S3_SECRET_ACCESS_KEY: 'not-the-secret' });
      assert.equal(refused.code, 1, refused.output);
      assert.match(refused.output, /access denied \(HTTP 403\): check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY/);
      assert.ok(Date.now() - started < 15_000, 'wrong keys are not retried');
      assert.doesNotMatch(refused.output, /not-the-secret/, 'the secret is never printed');
    } finally {
      client.destroy();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('names every missing setting and exits 2', async () => {
    const result = await createBucket({ S3_BUCKET: 'model-platform' });
    assert.equal(result.code, 2);
    assert.match(result.output, /S3_ENDPOINT, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY/);
  });
});
