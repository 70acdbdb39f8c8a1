import { randomBytes } from 'node:crypto';
import { access, constants, mkdir, open, readdir, readFile, rename, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobInfo } from '../core/blobs/blob-store.ts';
import { asDiskFailure } from '../core/errors/storage-failure.ts';
import { assertBlobKey, isValidBlobKey } from './blob-key.ts';
import type { BlobUrlSigner } from './blob-url-signer.ts';
import { nodeLocalDisk, type LocalDisk } from './local-disk.ts';
import type { ManagedBlobStore } from './managed-blob-store.ts';

/**
 * Temporary files untouched this long are left over from a crash mid-write: a write under way
 * touches its file with every chunk, and an upload whose body stalls is ended by the server's body
 * idle timeout (30 s by default). Removed by the sweep, at start-up and then hourly.
 */
const staleTemporaryMs = 600_000;

/**
 * Blobs on local disk under `root`: bytes in `files/<key>`, the content type in
 * `meta/<key>.json`. Every write goes to `tmp/` first and is renamed into place, so a reader sees
 * the old blob or the new one, never half of one. Download URLs are signed paths on this server.
 * A full or read-only disk fails the call with a 503 that says so (never the path), and what was
 * written of the failed blob is removed.
 */
export class LocalBlobStore implements ManagedBlobStore {
  readonly #files: string;
  readonly #meta: string;
  readonly #temporary: string;
  readonly #signer: BlobUrlSigner;
  readonly #disk: LocalDisk;

  constructor(root: string, signer: BlobUrlSigner, disk: LocalDisk = nodeLocalDisk) {
    this.#files = join(root, 'files');
    this.#meta = join(root, 'meta');
    this.#temporary = join(root, 'tmp');
    this.#signer = signer;
    this.#disk = disk;
  }

  async put(key: string, data: Uint8Array | Readable, contentType: string): Promise<BlobInfo> {
    assertBlobKey(key);
    const name = randomBytes(12).toString('hex');
    const dataTemporary = join(this.#temporary, name);
    const metaTemporary = join(this.#temporary, `${name}.json`);
    try {
      await mkdir(this.#temporary, { recursive: true });
      await this.#write(dataTemporary, data);
      const bytes = (await stat(dataTemporary)).size;
      await this.#write(metaTemporary, Buffer.from(JSON.stringify({ contentType })));
      // The content type first: bytes without it would be served as octet-stream for a moment.
      await moveInto(metaTemporary, this.#metaPath(key));
      await moveInto(dataTemporary, join(this.#files, key));
      return { key, contentType, bytes };
    } catch (error) {
      // A full disk leaves the part it managed to write; a failing removal must not hide why.
      await rm(dataTemporary, { force: true }).catch(() => undefined);
      await rm(metaTemporary, { force: true }).catch(() => undefined);
      throw asDiskFailure(error);
    }
  }

  async get(key: string): Promise<{ readonly info: BlobInfo; readonly stream: Readable } | undefined> {
    if (!isValidBlobKey(key)) return undefined;
    let handle;
    try {
      handle = await open(join(this.#files, key), 'r');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    try {
      const size = (await handle.stat()).size;
      const contentType = await this.#contentType(key);
      // Opened before reading the size, so a concurrent replace cannot mix two blobs.
      return { info: { key, contentType, bytes: size }, stream: handle.createReadStream() };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    if (!isValidBlobKey(key)) return;
    try {
      await rm(join(this.#files, key), { force: true });
      await rm(this.#metaPath(key), { force: true });
    } catch (error) {
      throw asDiskFailure(error);
    }
  }

  async downloadUrl(key: string, origin: string): Promise<string> {
    assertBlobKey(key);
    return this.#signer.url(key, origin);
  }

  async deleteOlderThan(cutoffMs: number, keepPrefixes: readonly string[] = []): Promise<number> {
    let deleted = 0;
    for (const key of await listFiles(this.#files, '')) {
      if (keepPrefixes.some((prefix) => key.startsWith(prefix))) continue;
      const info = await stat(join(this.#files, key)).catch(() => undefined);
      if (info === undefined || info.mtimeMs >= cutoffMs) continue;
      await this.delete(key);
      deleted += 1;
    }
    await removeEmptyFolders(this.#files);
    await removeEmptyFolders(this.#meta);
    const staleBefore = Date.now() - staleTemporaryMs;
    for (const name of await listFiles(this.#temporary, '')) {
      const info = await stat(join(this.#temporary, name)).catch(() => undefined);
      if (info !== undefined && info.mtimeMs < staleBefore) await rm(join(this.#temporary, name), { force: true });
    }
    return deleted;
  }

  /** The folder can be made and written; the answer gives the error code, not the path (/readyz is public). */
  async ping(): Promise<void> {
    try {
      await mkdir(this.#temporary, { recursive: true });
      await access(this.#temporary, constants.W_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new Error(`the blob folder cannot be written (${code ?? 'error'})`, { cause: error });
    }
  }

  async close(): Promise<void> {}

  /** Writes `data` to a new file through the disk's write stream (errors of either side reject). */
  async #write(path: string, data: Uint8Array | Readable): Promise<void> {
    await pipeline(data instanceof Uint8Array ? Readable.from([data]) : data, this.#disk.createWriteStream(path));
  }

  #metaPath(key: string): string {
    return join(this.#meta, `${key}.json`);
  }

  async #contentType(key: string): Promise<string> {
    try {
      const parsed = JSON.parse(await readFile(this.#metaPath(key), 'utf8')) as { contentType?: unknown };
      if (typeof parsed.contentType === 'string') return parsed.contentType;
    } catch (error) {
      if (!isMissing(error) && !(error instanceof SyntaxError)) throw error;
    }
    return 'application/octet-stream';
  }
}

/** Renames into place, making the folder; again if the sweeper removed it as empty in between. */
async function moveInto(from: string, to: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    await mkdir(dirname(to), { recursive: true });
    try {
      await rename(from, to);
      return;
    } catch (error) {
      if (!isMissing(error) || attempt >= 3) throw error;
    }
  }
}

/** Relative paths of every file under `folder` (none when it does not exist). */
async function listFiles(folder: string, prefix: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(join(folder, prefix), { withFileTypes: true });
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
  const files: string[] = [];
  for (const entry of entries) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) files.push(...(await listFiles(folder, path)));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

/** Removes folders left empty below `root` (not `root` itself); a folder a writer just filled stays. */
async function removeEmptyFolders(root: string): Promise<void> {
  const visit = async (folder: string): Promise<void> => {
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const child = join(folder, entry.name);
      await visit(child);
      await rmdir(child).catch(() => undefined);
    }
  };
  await visit(root);
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}
