import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Readable } from 'node:stream';
import type { BlobInfo } from '../core/blobs/blob-store.ts';
import type { S3Settings } from '../core/config/settings.ts';
import { objectStoreFailure } from './object-store-failure.ts';
import { assertBlobKey, isValidBlobKey } from './blob-key.ts';
import type { ManagedBlobStore } from './managed-blob-store.ts';

/** S3's smallest part (except the last); also the most a streamed upload holds in memory. */
const defaultPartBytes = 8 * 1024 * 1024;

/** A store that does not accept the connection within this long is down (the SDK then retries). */
const connectionTimeoutMs = 5_000;
/** A request whose socket stays silent this long is dead: a hung store fails the call instead of holding it for ever. */
const socketTimeoutMs = 60_000;

/**
 * Blobs in an S3-compatible bucket (AWS, MinIO, Ceph, R2). Download URLs are presigned GET URLs,
 * so clients fetch media from the store itself. Streams are uploaded in parts, never whole in memory.
 * A store that refuses connections, times out or answers 5xx fails the call with a 503 naming
 * the object store (objectStoreFailure); an upload that fails leaves no object behind.
 */
export class S3BlobStore implements ManagedBlobStore {
  readonly #client: S3Client;
  readonly #presigner: S3Client;
  readonly #bucket: string;
  readonly #ttlSeconds: number;
  readonly #partBytes: number;

  constructor(settings: S3Settings, ttlSeconds: number, options: { partBytes?: number } = {}) {
    this.#client = new S3Client(clientConfig(settings, settings.endpoint));
    // Signing needs no connection: URLs for clients may name an endpoint this server does not use.
    this.#presigner = settings.publicEndpoint === undefined ? this.#client : new S3Client(clientConfig(settings, settings.publicEndpoint));
    this.#bucket = settings.bucket;
    this.#ttlSeconds = ttlSeconds;
    this.#partBytes = Math.max(5 * 1024 * 1024, options.partBytes ?? defaultPartBytes);
  }

  async put(key: string, data: Uint8Array | Readable, contentType: string): Promise<BlobInfo> {
    assertBlobKey(key);
    if (data instanceof Uint8Array) {
      await this.#putWhole(key, data, contentType);
      return { key, contentType, bytes: data.byteLength };
    }
    return { key, contentType, bytes: await this.#putStream(key, data, contentType) };
  }

  async get(key: string): Promise<{ readonly info: BlobInfo; readonly stream: Readable } | undefined> {
    if (!isValidBlobKey(key)) return undefined;
    try {
      const object = await this.#call((client) => client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: key })));
      if (!(object.Body instanceof Readable)) throw new Error('S3 GetObject: the body is not a Node stream');
      const info = { key, contentType: object.ContentType ?? 'application/octet-stream', bytes: object.ContentLength ?? 0 };
      return { info, stream: object.Body };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    if (!isValidBlobKey(key)) return;
    await this.#call((client) => client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key })));
  }

  async downloadUrl(key: string): Promise<string> {
    assertBlobKey(key);
    return getSignedUrl(this.#presigner, new GetObjectCommand({ Bucket: this.#bucket, Key: key }), { expiresIn: this.#ttlSeconds });
  }

  /** HeadBucket: the endpoint answers, the credentials hold and the bucket exists (needs s3:ListBucket). */
  async ping(signal: AbortSignal): Promise<void> {
    await this.#call((client) => client.send(new HeadBucketCommand({ Bucket: this.#bucket }), { abortSignal: signal }));
  }

  async deleteOlderThan(cutoffMs: number, keepPrefixes: readonly string[] = []): Promise<number> {
    let deleted = 0;
    let continuationToken: string | undefined;
    do {
      const page = await this.#call((client) =>
        client.send(new ListObjectsV2Command({ Bucket: this.#bucket, ...(continuationToken === undefined ? {} : { ContinuationToken: continuationToken }) })),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined || object.LastModified === undefined || object.LastModified.getTime() >= cutoffMs) continue;
        if (keepPrefixes.some((prefix) => object.Key?.startsWith(prefix) === true)) continue;
        // One DeleteObject each: DeleteObjects needs a Content-MD5 that not every S3 clone computes alike.
        await this.#call((client) => client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: object.Key })));
        deleted += 1;
      }
      continuationToken = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (continuationToken !== undefined);
    return deleted;
  }

  async close(): Promise<void> {
    this.#client.destroy();
    if (this.#presigner !== this.#client) this.#presigner.destroy();
  }

  /** One request to the store, with an unavailable or full store turned into its 503 (other errors, 404 included, as they are). */
  async #call<Output>(request: (client: S3Client) => Promise<Output>): Promise<Output> {
    try {
      return await request(this.#client);
    } catch (error) {
      throw objectStoreFailure(error);
    }
  }

  async #putWhole(key: string, body: Uint8Array, contentType: string): Promise<void> {
    await this.#call((client) =>
      client.send(new PutObjectCommand({ Bucket: this.#bucket, Key: key, Body: body, ContentType: contentType, ContentLength: body.byteLength })),
    );
  }

  /** One PutObject when the stream fits in a part, else a multipart upload (aborted on any failure). */
  async #putStream(key: string, stream: Readable, contentType: string): Promise<number> {
    const parts = readParts(stream, this.#partBytes);
    const first = await parts.next();
    const firstPart = first.done === true ? Buffer.alloc(0) : first.value;
    const second = first.done === true ? first : await parts.next();
    if (second.done === true) {
      await this.#putWhole(key, firstPart, contentType);
      return firstPart.byteLength;
    }
    const created = await this.#call((client) => client.send(new CreateMultipartUploadCommand({ Bucket: this.#bucket, Key: key, ContentType: contentType })));
    const uploadId = created.UploadId;
    if (uploadId === undefined) throw new Error('S3 CreateMultipartUpload: no UploadId');
    const completed: { ETag: string; PartNumber: number }[] = [];
    let bytes = 0;
    try {
      const upload = async (body: Buffer) => {
        const PartNumber = completed.length + 1;
        const part = await this.#call((client) =>
          client.send(new UploadPartCommand({ Bucket: this.#bucket, Key: key, UploadId: uploadId, PartNumber, Body: body, ContentLength: body.byteLength })),
        );
        if (part.ETag === undefined) throw new Error(`S3 UploadPart ${PartNumber}: no ETag`);
        completed.push({ ETag: part.ETag, PartNumber });
        bytes += body.byteLength;
      };
      await upload(firstPart);
      await upload(second.value);
      for await (const body of parts) await upload(body);
      await this.#call((client) =>
        client.send(new CompleteMultipartUploadCommand({ Bucket: this.#bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: completed } })),
      );
      return bytes;
    } catch (error) {
      await this.#client.send(new AbortMultipartUploadCommand({ Bucket: this.#bucket, Key: key, UploadId: uploadId })).catch(() => undefined);
      throw error;
    }
  }
}

function clientConfig(settings: S3Settings, endpoint: string | undefined): S3ClientConfig {
  return {
    region: settings.region,
    ...(endpoint === undefined ? {} : { endpoint, forcePathStyle: true }),
    ...(settings.accessKeyId === undefined || settings.secretAccessKey === undefined
      ? {}
      : { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }),
    // Without these, S3 clones store streamed uploads with the aws-chunked framing (ENVIRONMENT.md).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { connectionTimeout: connectionTimeoutMs, socketTimeout: socketTimeoutMs },
  };
}

/** The stream cut into buffers of exactly `size` bytes (the last one shorter). */
async function* readParts(stream: Readable, size: number): AsyncGenerator<Buffer, void> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of stream) {
    let buffer: Buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array | string);
    while (pendingBytes + buffer.byteLength >= size) {
      const take = size - pendingBytes;
      pending.push(buffer.subarray(0, take));
      yield Buffer.concat(pending);
      buffer = buffer.subarray(take);
      pending = [];
      pendingBytes = 0;
    }
    if (buffer.byteLength > 0) {
      pending.push(buffer);
      pendingBytes += buffer.byteLength;
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending);
}

function isNotFound(error: unknown): boolean {
  const candidate = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return candidate.name === 'NoSuchKey' || candidate.name === 'NotFound' || candidate.$metadata?.httpStatusCode === 404;
}
