import type { Readable } from 'node:stream';

/** An uploaded file's record (POST /files); the bytes live in the blob store. */
export interface StoredFile {
  readonly id: string;
  readonly ownerKeyId: string;
  readonly purpose: string;
  readonly filename: string;
  readonly bytes: number;
  readonly createdAt: Date;
}

export interface FileListQuery {
  readonly purpose?: string;
  readonly limit: number;
  /** Id of the last file of the previous page. */
  readonly after?: string;
  readonly order: 'asc' | 'desc';
}

export interface NewFile {
  readonly purpose: string;
  readonly filename: string;
  /** The upload, streamed; it errors when the size limit is passed (nothing is then kept). */
  readonly content: Readable;
}

/** Files per key: every method sees only the owner's files (another key's id is "not found"). */
export interface FileStore {
  save(ownerKeyId: string, file: NewFile): Promise<StoredFile>;
  list(ownerKeyId: string, query: FileListQuery): Promise<readonly StoredFile[]>;
  get(ownerKeyId: string, id: string): Promise<StoredFile | undefined>;
  /** The file's bytes, or undefined when the owner has no such file. */
  read(ownerKeyId: string, id: string): Promise<Buffer | undefined>;
  delete(ownerKeyId: string, id: string): Promise<boolean>;
}
