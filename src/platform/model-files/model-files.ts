import { existsSync, statSync } from 'node:fs';
import type { ModelFileLocator } from '../../core/backends/backend.ts';
import type { ModelFilesSettings } from '../../core/config/settings.ts';
import { join } from 'node:path';
import { downloadHubFile, type DownloadProgress } from './download-hub-file.ts';
import { parseHfUri, type HfFileReference } from './hf-uri.ts';
import { HubFileError, readHubFileMetadata } from './hub-file-metadata.ts';

type ModelFileState = 'ready' | 'downloading' | 'failed' | 'missing';

/** One hf:// file as the console and /readyz show it. */
export interface ModelFileStatus {
  readonly uri: string;
  readonly path: string;
  readonly bytes: number | null;
  readonly state: ModelFileState;
  readonly downloadedBytes: number;
  readonly totalBytes: number | null;
  readonly error: string | null;
}

interface Fetching {
  readonly done: Promise<string>;
  readonly current: { progress: DownloadProgress };
}

/**
 * The hf:// files of the catalog: where each lives on disk, whether it is there, and one download
 * at a time per file in this process. A file another process pulled (`model-platform pull`) is
 * ready as soon as it has its final name, since a download only ever renames a checked file into place.
 */
export class ModelFiles implements ModelFileLocator {
  readonly settings: ModelFilesSettings;
  readonly #known = new Map<string, HfFileReference>();
  readonly #fetching = new Map<string, Fetching>();
  readonly #failures = new Map<string, string>();

  constructor(settings: ModelFilesSettings) {
    this.settings = settings;
  }

  /** Registers an hf:// URI of the catalog (throws on a malformed one) and answers where its file lives. */
  register(uri: string): string {
    return this.pathOf(this.referenceOf(uri));
  }

  /** The parsed URI, registered (throws on a malformed one). */
  referenceOf(uri: string): HfFileReference {
    const reference = parseHfUri(uri);
    this.#known.set(reference.uri, reference);
    return reference;
  }

  localPath(uri: string): string {
    return this.register(uri);
  }

  notReadyReason(uri: string): string | undefined {
    const status = this.statusOf(parseHfUri(uri));
    switch (status.state) {
      case 'ready':
        return undefined;
      case 'downloading':
        return `is downloading ${status.uri} (${describeProgress(status)}); it answers once the file is in place (progress in the log and GET /readyz)`;
      case 'failed':
        return `could not download ${status.uri}: ${status.error ?? 'unknown error'}; run \`model-platform pull ${status.uri}\``;
      case 'missing':
        return `has not downloaded ${status.uri} yet (MODEL_PLATFORM_PULL=off or offline); run \`model-platform pull ${status.uri}\``;
    }
  }

  pathOf(reference: HfFileReference): string {
    return join(this.settings.directory, `${reference.owner}--${reference.repo}`, reference.revision.replaceAll('/', '--'), ...reference.file.split('/'));
  }

  /** Every registered file's state, in registration order. */
  statuses(): ModelFileStatus[] {
    return [...this.#known.values()].map((reference) => this.statusOf(reference));
  }

  statusOf(reference: HfFileReference): ModelFileStatus {
    const path = this.pathOf(reference);
    const fetching = this.#fetching.get(reference.uri);
    const bytes = existsSync(path) ? statSync(path).size : null;
    if (bytes !== null) return { uri: reference.uri, path, bytes, state: 'ready', downloadedBytes: bytes, totalBytes: bytes, error: null };
    const progress = fetching?.current.progress;
    const failure = this.#failures.get(reference.uri);
    return {
      uri: reference.uri,
      path,
      bytes: null,
      state: fetching !== undefined ? 'downloading' : failure !== undefined ? 'failed' : 'missing',
      downloadedBytes: progress?.downloadedBytes ?? 0,
      totalBytes: progress?.totalBytes ?? null,
      error: failure ?? null,
    };
  }

  /**
   * Downloads the file unless it is there; concurrent calls for one file share one download. A
   * failure is kept for the status (and thrown) until the next try.
   */
  fetch(uri: string, onProgress: (progress: DownloadProgress) => void = () => undefined, signal?: AbortSignal): Promise<string> {
    const reference = this.referenceOf(uri);
    const destination = this.pathOf(reference);
    if (existsSync(destination)) return Promise.resolve(destination);
    const running = this.#fetching.get(reference.uri);
    if (running !== undefined) return running.done;
    const current = { progress: { downloadedBytes: 0, totalBytes: undefined } as DownloadProgress };
    const done = (async () => {
      const { endpoint, token } = this.settings;
      const metadata = await readHubFileMetadata(endpoint, token, reference);
      current.progress = { downloadedBytes: 0, totalBytes: metadata.size };
      await downloadHubFile({
        reference,
        metadata,
        destination,
        endpoint,
        token,
        signal,
        onProgress: (progress) => {
          current.progress = progress;
          onProgress(progress);
        },
      });
      return destination;
    })();
    this.#failures.delete(reference.uri);
    this.#fetching.set(reference.uri, { done, current });
    done.then(
      () => this.#fetching.delete(reference.uri),
      (error: unknown) => {
        this.#fetching.delete(reference.uri);
        this.#failures.set(reference.uri, describeFailure(reference, error));
      },
    );
    return done;
  }
}

/** A hub failure already names the URI; anything else (a disk error, a cut the downloader gave up on) is said with it. */
export function describeFailure(reference: HfFileReference, error: unknown): string {
  if (error instanceof HubFileError) return error.message;
  return `${reference.uri}: the download failed (${error instanceof Error ? error.message : String(error)}); pull again to resume it`;
}

/** "42% of 980 MB" (or the bytes so far when the hub stated no size). */
export function describeProgress(progress: { readonly downloadedBytes: number; readonly totalBytes: number | null | undefined }): string {
  const { downloadedBytes, totalBytes } = progress;
  if (totalBytes === null || totalBytes === undefined || totalBytes === 0) return `${formatBytes(downloadedBytes)} so far`;
  return `${Math.floor((downloadedBytes / totalBytes) * 100)}% of ${formatBytes(totalBytes)}`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.ceil(bytes / 1024)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(2)} GB`;
}
