import type { Readable } from 'node:stream';
import type { BlobInfo } from '../core/blobs/blob-store.ts';
import { inSpan } from '../core/telemetry/tracing.ts';
import type { ManagedBlobStore } from './managed-blob-store.ts';

/**
 * The blob store with a span per put, get and delete (`blob put` …) naming the store kind and the
 * key, for when tracing is on (createBlobStore wraps the store only then). A get's span covers
 * finding the blob, not the caller's reading of its stream.
 */
export function traceBlobStore(store: ManagedBlobStore, kind: 'local' | 's3'): ManagedBlobStore {
  const attributes = (key: string) => ({ 'model_platform.blob_store': kind, 'model_platform.blob_key': key });
  return {
    put: (key: string, data: Uint8Array | Readable, contentType: string): Promise<BlobInfo> =>
      inSpan(
        'blob put',
        async (span) => {
          const info = await store.put(key, data, contentType);
          span?.setAttribute('model_platform.blob_bytes', info.bytes);
          return info;
        },
        attributes(key),
        'client',
      ),
    get: (key: string) =>
      inSpan(
        'blob get',
        async (span) => {
          const found = await store.get(key);
          span?.setAttribute('model_platform.blob_found', found !== undefined);
          return found;
        },
        attributes(key),
        'client',
      ),
    delete: (key: string) => inSpan('blob delete', () => store.delete(key), attributes(key), 'client'),
    downloadUrl: (key, origin) => store.downloadUrl(key, origin),
    deleteOlderThan: (cutoffMs, keepPrefixes) => store.deleteOlderThan(cutoffMs, keepPrefixes),
    ping: (signal) => store.ping(signal),
    close: () => store.close(),
  };
}
