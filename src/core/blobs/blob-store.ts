import type { Readable } from 'node:stream';

/** What the store knows of one blob. */
export interface BlobInfo {
  readonly key: string;
  readonly contentType: string;
  readonly bytes: number;
}

/**
 * Files and generated media (docs/architecture.md, "Storage"): local disk by default, S3-compatible when
 * configured. Keys are opaque paths chosen by the caller (e.g. `images/<task>/<n>.png`).
 */
export interface BlobStore {
  put(key: string, data: Uint8Array | Readable, contentType: string): Promise<BlobInfo>;
  /** The blob's bytes as a stream, or undefined when there is no such blob. */
  get(key: string): Promise<{ readonly info: BlobInfo; readonly stream: Readable } | undefined>;
  delete(key: string): Promise<void>;
  /**
   * An absolute URL a client can download the blob from, valid for the configured lifetime: a
   * signed path on this server (`origin` is its public origin) or a presigned S3 URL.
   */
  downloadUrl(key: string, origin: string): Promise<string>;
}
