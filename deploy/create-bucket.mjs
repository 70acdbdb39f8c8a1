// Creates the platform's bucket on the object store unless it exists, from the nodes' own S3
// settings (S3_BUCKET, S3_ENDPOINT, S3_REGION, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY). The
// one-shot `object-store-init` of compose.yaml runs it in the platform image, whose S3 client it
// uses, before the nodes start: their readiness check asks for the bucket (HeadBucket). Safe to
// run again. Exit code 0 when the bucket exists afterwards, 1 when it could not be made, 2 when a
// setting is missing.
/* global process, console, AbortSignal, setTimeout */
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';

const { S3_BUCKET: bucket, S3_ENDPOINT: endpoint, S3_ACCESS_KEY_ID: accessKeyId, S3_SECRET_ACCESS_KEY: secretAccessKey } = process.env;
const region = process.env.S3_REGION || 'us-east-1';
const missing = Object.entries({ S3_BUCKET: bucket, S3_ENDPOINT: endpoint, S3_ACCESS_KEY_ID: accessKeyId, S3_SECRET_ACCESS_KEY: secretAccessKey })
  .filter(([, value]) => !value)
  .map(([name]) => name);
if (missing.length > 0) {
  console.error(`create-bucket: set ${missing.join(', ')}.`);
  process.exit(2);
}

const client = new S3Client({ endpoint, region, forcePathStyle: true, credentials: { accessKeyId, secretAccessKey }, maxAttempts: 1 });
const requestTimeoutMs = 10_000;
// The store may still be starting when this runs without a health check to wait on.
const attempts = 30;
const pauseMs = 2_000;

const statusOf = (error) => error?.$metadata?.httpStatusCode;

async function bucketExists() {
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }), { abortSignal: AbortSignal.timeout(requestTimeoutMs) });
    return true;
  } catch (error) {
    if (statusOf(error) === 404) return false;
    throw error;
  }
}

async function createBucket() {
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }), { abortSignal: AbortSignal.timeout(requestTimeoutMs) });
  } catch (error) {
    // Another run made it in the meantime.
    if (error?.name !== 'BucketAlreadyOwnedByYou') throw error;
  }
}

for (let attempt = 1; ; attempt += 1) {
  try {
    if (await bucketExists()) {
      console.log(`create-bucket: ${bucket} exists on ${endpoint}.`);
    } else {
      await createBucket();
      console.log(`create-bucket: created ${bucket} on ${endpoint}.`);
    }
    break;
  } catch (error) {
    // A HEAD answer has no body, so the SDK names a refusal only by its status.
    const reason =
      statusOf(error) === 403
        ? 'access denied (HTTP 403): check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY'
        : `${error?.name ?? 'Error'}${statusOf(error) === undefined ? '' : ` (HTTP ${statusOf(error)})`}: ${error?.message ?? error}`;
    // Wrong keys or a forbidden bucket do not get better by waiting.
    if (attempt >= attempts || statusOf(error) === 403 || statusOf(error) === 400) {
      console.error(`create-bucket: ${bucket} on ${endpoint}: ${reason}`);
      process.exit(1);
    }
    console.error(`create-bucket: ${endpoint} not ready (${reason}); trying again in ${pauseMs / 1000} s.`);
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}
