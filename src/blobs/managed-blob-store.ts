import type { BlobStore } from '../core/blobs/blob-store.ts';

/** A blob store as the platform runs it: with retention and a close. */
export interface ManagedBlobStore extends BlobStore {
  /**
   * Deletes blobs written before `cutoffMs` (Unix ms), except keys starting with one of
   * `keepPrefixes` (blobs with a retention of their own, such as uploaded files); returns how many.
   */
  deleteOlderThan(cutoffMs: number, keepPrefixes?: readonly string[]): Promise<number>;
  /** For /readyz: resolves when the store answers and can be written (the local folder; the S3 bucket). */
  ping(signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}
