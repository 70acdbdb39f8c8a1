import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { HubFileError, type HubFileMetadata } from './hub-file-metadata.ts';
import type { HfFileReference } from './hf-uri.ts';

export interface DownloadProgress {
  readonly downloadedBytes: number;
  readonly totalBytes: number | undefined;
}

/** Suffix of a fetched file not yet checked: it gets its final name only once its size and hash match. */
const unverifiedSuffix = '.unverified';

/**
 * Fetches the file to `destination` with node-llama-cpp's downloader (ipull: parallel ranges, a
 * `.ipull` progress file beside it, resumed by the next call after a cut), then checks the size and
 * the SHA-256 the hub published; only a file that matches is renamed to its final name, and one
 * that does not is deleted.
 */
export async function downloadHubFile(options: {
  readonly reference: HfFileReference;
  readonly metadata: HubFileMetadata;
  readonly destination: string;
  readonly endpoint: string;
  readonly token: string | undefined;
  readonly onProgress: (progress: DownloadProgress) => void;
  readonly signal?: AbortSignal | undefined;
}): Promise<void> {
  const { reference, metadata, destination } = options;
  const unverified = destination + unverifiedSuffix;
  await mkdir(dirname(destination), { recursive: true });
  const { createModelDownloader } = await import('node-llama-cpp');
  const downloader = await createModelDownloader({
    modelUri: metadata.url,
    dirPath: dirname(destination),
    fileName: basename(unverified),
    tokens: { huggingFace: options.token ?? '' },
    endpoints: { huggingFace: options.endpoint },
    // A stopped download keeps its progress file, so the next pull goes on from there.
    deleteTempFileOnCancel: false,
    parallelDownloads: 1,
    onProgress: ({ downloadedSize, totalSize }) =>
      options.onProgress({ downloadedBytes: downloadedSize, totalBytes: totalSize > 0 ? totalSize : metadata.size }),
  });
  await downloader.download(options.signal === undefined ? {} : { signal: options.signal });
  const { size } = await stat(unverified);
  if (metadata.size !== undefined && size !== metadata.size) {
    await unlink(unverified);
    throw new HubFileError('refused', `${reference.uri}: the download has ${size} bytes where the hub states ${metadata.size}; it was deleted, pull again`);
  }
  if (metadata.sha256 !== undefined) {
    const hash = createHash('sha256');
    await pipeline(createReadStream(unverified), hash);
    const actual = hash.digest('hex');
    if (actual !== metadata.sha256) {
      await unlink(unverified);
      throw new HubFileError(
        'refused',
        `${reference.uri}: the download's SHA-256 (${actual}) is not the hub's (${metadata.sha256}); it was deleted, pull again`,
      );
    }
  }
  await rename(unverified, destination);
}
