import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/core/config/config-error.ts';
import { readSettings } from '../../src/core/config/settings.ts';

describe('task and blob settings', () => {
  it('default to the embedded queue, local blobs, 30-day retention and day-long URLs', () => {
    const settings = readSettings({});
    assert.equal(settings.redisUrl, undefined);
    assert.equal(settings.s3, undefined);
    assert.equal(settings.publicUrl, undefined);
    assert.equal(settings.workerConcurrency, 4);
    assert.equal(settings.blobRetentionDays, 30);
    assert.equal(settings.blobUrlTtlSeconds, 86_400);
  });

  it('read Redis, S3, the public URL and the blob limits from the environment', () => {
    const settings = readSettings({
      REDIS_URL: 'redis://queue:6379/2',
      S3_BUCKET: 'media',
      S3_ENDPOINT: 'http://minio:9000',
      S3_REGION: 'eu-central-1',
      S3_ACCESS_KEY_ID: 'id',
      S3_SECRET_ACCESS_KEY: 'secret',
      S3_PUBLIC_ENDPOINT: 'https://media.example.com',
      MODEL_PLATFORM_PUBLIC_URL: 'https://api.example.com/platform/',
      MODEL_PLATFORM_WORKER_CONCURRENCY: '16',
      MODEL_PLATFORM_BLOB_RETENTION_DAYS: '0',
      MODEL_PLATFORM_BLOB_URL_TTL: '3600',
    });
    assert.equal(settings.redisUrl, 'redis://queue:6379/2');
    assert.deepEqual(settings.s3, {
      bucket: 'media',
      endpoint: 'http://minio:9000',
      region: 'eu-central-1',
      accessKeyId: 'id',
      secretAccessKey: 'secret',
      publicEndpoint: 'https://media.example.com',
    });
    assert.equal(settings.publicUrl, 'https://api.example.com/platform');
    assert.equal(settings.workerConcurrency, 16);
    assert.equal(settings.blobRetentionDays, 0);
    assert.equal(settings.blobUrlTtlSeconds, 3600);
    assert.equal(readSettings({ S3_BUCKET: 'media' }).s3?.region, 'us-east-1');
  });

  const bad: [string, NodeJS.ProcessEnv, string][] = [
    ['a Redis URL of another scheme', { REDIS_URL: 'http://queue:6379' }, 'REDIS_URL'],
    ['S3 settings without a bucket', { S3_ENDPOINT: 'http://minio:9000' }, 'S3_BUCKET'],
    ['an S3 endpoint that is not a URL', { S3_BUCKET: 'media', S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT'],
    ['only half the S3 credentials', { S3_BUCKET: 'media', S3_ACCESS_KEY_ID: 'id' }, 'S3_SECRET_ACCESS_KEY'],
    ['a public URL that is not http(s)', { MODEL_PLATFORM_PUBLIC_URL: 'ftp://x' }, 'MODEL_PLATFORM_PUBLIC_URL'],
    ['a URL lifetime past the 7 days S3 allows', { MODEL_PLATFORM_BLOB_URL_TTL: '700000' }, 'MODEL_PLATFORM_BLOB_URL_TTL'],
    ['a retention that is not a whole number', { MODEL_PLATFORM_BLOB_RETENTION_DAYS: '1.5' }, 'MODEL_PLATFORM_BLOB_RETENTION_DAYS'],
    ['no worker concurrency', { MODEL_PLATFORM_WORKER_CONCURRENCY: '0' }, 'MODEL_PLATFORM_WORKER_CONCURRENCY'],
  ];
  for (const [name, environment, variable] of bad) {
    it(`refuse ${name}`, () => {
      assert.throws(
        () => readSettings(environment),
        (error: unknown) => error instanceof ConfigError && error.message.includes(variable),
      );
    });
  }
});
