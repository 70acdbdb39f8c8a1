import { join } from 'node:path';
import type { Settings } from '../core/config/settings.ts';
import { platformTracer } from '../core/telemetry/tracing.ts';
import { BlobUrlSigner } from './blob-url-signer.ts';
import { LocalBlobStore } from './local-blob-store.ts';
import { nodeLocalDisk, type LocalDisk } from './local-disk.ts';
import type { ManagedBlobStore } from './managed-blob-store.ts';
import { S3BlobStore } from './s3-blob-store.ts';
import { traceBlobStore } from './traced-blob-store.ts';

export interface BlobStorage {
  readonly store: ManagedBlobStore;
  /** Signs and checks this server's download URLs (`GET /blobs/...`), whichever store holds the bytes. */
  readonly signer: BlobUrlSigner;
}

/** S3 when `S3_BUCKET` is set, else local disk under `<dataDir>/blobs` (written through `disk`); traced while tracing is on. */
export function createBlobStore(settings: Settings, masterKey: Buffer, disk: LocalDisk = nodeLocalDisk): BlobStorage {
  const signer = new BlobUrlSigner(masterKey, settings.blobUrlTtlSeconds, settings.publicUrl);
  const store =
    settings.s3 === undefined ? new LocalBlobStore(join(settings.dataDir, 'blobs'), signer, disk) : new S3BlobStore(settings.s3, settings.blobUrlTtlSeconds);
  if (platformTracer() === undefined) return { store, signer };
  return { store: traceBlobStore(store, settings.s3 === undefined ? 'local' : 's3'), signer };
}
