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
  /** By creation time. */
  readonly order: 'asc' | 'desc';
}

export interface FilePage {
  readonly files: readonly StoredFile[];
  /** Whether more files follow the last one of this page. */
  readonly hasMore: boolean;
}

/** The bytes of an upload and what the client said about them. */
export interface FileUpload {
  readonly filename: string;
  /** The client's content type; served back with the content (octet-stream when absent or malformed). */
  readonly contentType?: string;
  /** The upload, streamed; it errors when the size limit is passed (nothing is then kept). */
  readonly content: Readable;
}

export interface NewFile extends FileUpload {
  readonly purpose: string;
}

/**
 * An upload whose bytes are stored but which no listing shows yet. A multipart form may send its
 * `purpose` after the file, so the bytes are streamed into storage first and the record is
 * written once the whole form is valid; exactly one of `commit` or `discard` follows.
 */
export interface StagedFile {
  readonly id: string;
  readonly bytes: number;
  /**
   * Writes the record; refused (and the bytes deleted) when the key already keeps the most files.
   * `pending`: the upload has more steps (a retrieval file is indexed next): the file is not
   * listed or served until `markReady`, and the sweep removes it if that never comes.
   */
  commit(purpose: string, options?: { readonly pending?: boolean }): Promise<StoredFile>;
  discard(): Promise<void>;
}

/** A file's bytes as a stream, for GET /files/{id}/content. */
export interface FileContent {
  readonly file: StoredFile;
  readonly contentType: string;
  readonly stream: Readable;
}

/** Files per key: every method sees only the owner's files (another key's id is "not found"). */
export interface FileStore {
  /** Streams an upload into storage; refused before reading a byte when the key keeps the most files already. */
  stage(ownerKeyId: string, upload: FileUpload): Promise<StagedFile>;
  /** `stage` and `commit` in one step. */
  save(ownerKeyId: string, file: NewFile): Promise<StoredFile>;
  /** Ready files only. */
  list(ownerKeyId: string, query: FileListQuery): Promise<FilePage>;
  /** A ready file. */
  get(ownerKeyId: string, id: string): Promise<StoredFile | undefined>;
  /** The file's bytes (a pending one's too: its upload reads it), or undefined when the owner has no such file. */
  read(ownerKeyId: string, id: string): Promise<Buffer | undefined>;
  /** A ready file's bytes as a stream, or undefined when the owner has no such ready file. */
  open(ownerKeyId: string, id: string): Promise<FileContent | undefined>;
  /** Ends a pending upload: the file is listed from now on. */
  markReady(ownerKeyId: string, id: string): Promise<void>;
  /** Deletes the record and the bytes; false when the owner has no such file. */
  delete(ownerKeyId: string, id: string): Promise<boolean>;
}
