import type { BlobStore } from '../core/blobs/blob-store.ts';

/** A blob store as the platform runs it: with retention and a close. */
export interface ManagedBlobStore extends BlobStore {
  /** Deletes blobs written before `cutoffMs` (Unix ms); returns how many. */
  deleteOlderThan(cutoffMs: number): Promise<number>;
  close(): Promise<void>;
}
