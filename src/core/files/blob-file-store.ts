import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { BlobStore } from '../blobs/blob-store.ts';
import { invalidField, type ApiError } from '../errors/api-error.ts';
import { fileBlobPrefix, maxFileBytes, maxFilesPerKey } from './file-limits.ts';
import type { FileCursor, FileRecord, FileRecords } from './file-records.ts';
import type { FileContent, FileListQuery, FilePage, FileStore, FileUpload, NewFile, StagedFile, StoredFile } from './file-store.ts';

export interface BlobFileStoreOptions {
  readonly maxFileBytes?: number;
  readonly maxFilesPerKey?: number;
  /** The clock that stamps `createdAt` (tests move it to prove the retention). */
  readonly now?: () => number;
}

/** Records deleted per round of a retention sweep. */
const sweepBatch = 100;

/**
 * Uploaded files: the record in the database (`FileRecords`), the bytes in the blob store under
 * `files/<id>`. Bytes are written first and the record last, so a listing never shows a file
 * whose bytes are not all there; a refused or failed upload leaves neither behind. A full disk or
 * an unavailable object store reaches the caller as the store's 503, which names the condition.
 */
export class BlobFileStore implements FileStore {
  readonly #records: FileRecords;
  readonly #blobs: BlobStore;
  readonly #maxFileBytes: number;
  readonly #maxFilesPerKey: number;
  readonly #now: () => number;

  constructor(records: FileRecords, blobs: BlobStore, options: BlobFileStoreOptions = {}) {
    this.#records = records;
    this.#blobs = blobs;
    this.#maxFileBytes = options.maxFileBytes ?? maxFileBytes;
    this.#maxFilesPerKey = options.maxFilesPerKey ?? maxFilesPerKey;
    this.#now = options.now ?? Date.now;
  }

  async stage(ownerKeyId: string, upload: FileUpload): Promise<StagedFile> {
    // Checked before a byte is stored, so a key at the limit is not made to upload 100 MB in vain;
    // `commit` checks again atomically, since other uploads may finish meanwhile.
    if ((await this.#records.count(ownerKeyId)) >= this.#maxFilesPerKey) throw this.#tooManyFiles();
    const id = `file-${randomBytes(12).toString('hex')}`;
    const key = blobKey(id);
    const limited = Readable.from(limitBytes(upload.content, this.#maxFileBytes, () => this.#tooLarge()));
    const info = await this.#blobs.put(key, limited, cleanContentType(upload.contentType));
    let settled = false;
    const settle = () => {
      if (settled) throw new Error(`staged file ${id} was already committed or discarded`);
      settled = true;
    };
    return {
      id,
      bytes: info.bytes,
      commit: async (purpose, options) => {
        settle();
        const file: StoredFile = { id, ownerKeyId, purpose, filename: upload.filename, bytes: info.bytes, createdAt: new Date(this.#now()) };
        let inserted: boolean;
        try {
          inserted = await this.#records.insertWithinLimit(file, this.#maxFilesPerKey, options?.pending === true ? 'pending' : 'ready');
        } catch (error) {
          // The record's failure (a full database disk) is what the caller hears, not the cleanup's.
          await this.#blobs.delete(key).catch(() => undefined);
          throw error;
        }
        if (!inserted) {
          await this.#blobs.delete(key).catch(() => undefined);
          throw this.#tooManyFiles();
        }
        return file;
      },
      discard: async () => {
        settle();
        await this.#blobs.delete(key);
      },
    };
  }

  async save(ownerKeyId: string, file: NewFile): Promise<StoredFile> {
    const staged = await this.stage(ownerKeyId, file);
    return staged.commit(file.purpose);
  }

  async list(ownerKeyId: string, query: FileListQuery): Promise<FilePage> {
    let after: FileCursor | undefined;
    if (query.after !== undefined) {
      after = await this.#records.find(ownerKeyId, query.after);
      // A page cannot start after a file this key does not have (or no longer has).
      if (after === undefined) throw invalidField('after', `names no file of this key ('${query.after}')`);
    }
    const files = await this.#records.list(ownerKeyId, {
      limit: query.limit + 1,
      order: query.order,
      ...(query.purpose === undefined ? {} : { purpose: query.purpose }),
      ...(after === undefined ? {} : { after }),
    });
    return { files: files.slice(0, query.limit), hasMore: files.length > query.limit };
  }

  async get(ownerKeyId: string, id: string): Promise<StoredFile | undefined> {
    const file = await this.#records.find(ownerKeyId, id);
    return file?.state === 'ready' ? withoutState(file) : undefined;
  }

  async read(ownerKeyId: string, id: string): Promise<Buffer | undefined> {
    const file = await this.#records.find(ownerKeyId, id);
    const content = file === undefined ? undefined : await this.#content(file);
    if (content === undefined) return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of content.stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async open(ownerKeyId: string, id: string): Promise<FileContent | undefined> {
    const file = await this.#records.find(ownerKeyId, id);
    return file?.state === 'ready' ? this.#content(file) : undefined;
  }

  async markReady(ownerKeyId: string, id: string): Promise<void> {
    if (!(await this.#records.markReady(ownerKeyId, id))) throw new Error(`the pending upload ${id} was not found to mark ready`);
  }

  async #content(file: FileRecord): Promise<FileContent | undefined> {
    const blob = await this.#blobs.get(blobKey(file.id));
    if (blob === undefined) return undefined;
    return { file: withoutState(file), contentType: blob.info.contentType, stream: blob.stream };
  }

  async delete(ownerKeyId: string, id: string): Promise<boolean> {
    const file = await this.#records.find(ownerKeyId, id);
    if (file === undefined) return false;
    // Bytes first: if the record's delete then fails, the file still lists and a retry finishes the job,
    // whereas a record deleted first could leave bytes nothing points at.
    await this.#blobs.delete(blobKey(file.id));
    return this.#records.delete(ownerKeyId, id);
  }

  /** Deletes every file (record and bytes) uploaded before `cutoffMs`; returns how many. */
  async deleteCreatedBefore(cutoffMs: number): Promise<number> {
    let deleted = 0;
    for (;;) {
      const expired = await this.#records.listCreatedBefore(new Date(cutoffMs), sweepBatch);
      for (const file of expired) {
        await this.#blobs.delete(blobKey(file.id));
        if (await this.#records.delete(file.ownerKeyId, file.id)) deleted += 1;
      }
      if (expired.length < sweepBatch) return deleted;
    }
  }

  /**
   * Deletes pending uploads (record and bytes) begun before `cutoffMs`: their process died before
   * the file became usable. Returns how many.
   */
  async deleteAbandonedUploads(cutoffMs: number): Promise<number> {
    let deleted = 0;
    for (;;) {
      const abandoned = await this.#records.listPendingBefore(new Date(cutoffMs), sweepBatch);
      for (const file of abandoned) {
        await this.#blobs.delete(blobKey(file.id));
        if (await this.#records.delete(file.ownerKeyId, file.id)) deleted += 1;
      }
      if (abandoned.length < sweepBatch) return deleted;
    }
  }

  #tooManyFiles(): ApiError {
    return invalidField(
      'file',
      `this key already keeps ${this.#maxFilesPerKey} files, the most one key may keep; ` + 'delete one (DELETE /paas/v4/files/{id}) before uploading another',
    );
  }

  #tooLarge(): ApiError {
    const mebibytes = this.#maxFileBytes / (1024 * 1024);
    const size = Number.isInteger(mebibytes) ? `${mebibytes} MB (${this.#maxFileBytes} bytes)` : `${this.#maxFileBytes} bytes`;
    return invalidField('file', `must be at most ${size}`);
  }
}

/** The record as callers see it: a file, its state kept inside the store. */
function withoutState(file: FileRecord): StoredFile {
  return { id: file.id, ownerKeyId: file.ownerKeyId, purpose: file.purpose, filename: file.filename, bytes: file.bytes, createdAt: file.createdAt };
}

function blobKey(id: string): string {
  return `${fileBlobPrefix}${id}`;
}

/** The stream's chunks, failing with `tooLarge()` as soon as more than `maxBytes` have passed. */
async function* limitBytes(content: Readable, maxBytes: number, tooLarge: () => Error): AsyncGenerator<Buffer> {
  let bytes = 0;
  for await (const chunk of content) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array | string);
    bytes += buffer.byteLength;
    if (bytes > maxBytes) throw tooLarge();
    yield buffer;
  }
}

/** `type/subtype` as the client sent it, lower-cased and without parameters; octet-stream when it is not one. */
const mediaType = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

function cleanContentType(contentType: string | undefined): string {
  const essence = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  return mediaType.test(essence) ? essence : 'application/octet-stream';
}
