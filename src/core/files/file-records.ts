import type { StoredFile } from './file-store.ts';

/** `pending`: a multi-step upload still under way (a retrieval file being indexed); `ready`: usable, and listed. */
export type FileState = 'pending' | 'ready';

/** A file's record with its state. */
export interface FileRecord extends StoredFile {
  readonly state: FileState;
}

/** Where a listing page starts: after this file, in the listing's order. */
export interface FileCursor {
  readonly id: string;
  readonly createdAt: Date;
}

export interface FileRecordQuery {
  readonly purpose?: string;
  readonly limit: number;
  readonly after?: FileCursor;
  readonly order: 'asc' | 'desc';
}

/** What the file store needs from the database (implemented in src/store). */
export interface FileRecords {
  /**
   * Inserts the record unless its owner already has `maxFilesPerOwner` records; false when refused.
   * Atomic against concurrent inserts of the same owner, so the limit holds under races.
   */
  insertWithinLimit(file: StoredFile, maxFilesPerOwner: number, state?: FileState): Promise<boolean>;
  /** Every file of the owner, pending ones included (they hold bytes too). */
  count(ownerKeyId: string): Promise<number>;
  find(ownerKeyId: string, id: string): Promise<FileRecord | undefined>;
  /** Ready files only, ordered by creation time, then id (ties). */
  list(ownerKeyId: string, query: FileRecordQuery): Promise<StoredFile[]>;
  /** Marks a pending file ready; false when there is no such pending file. */
  markReady(ownerKeyId: string, id: string): Promise<boolean>;
  /** Pending files of every owner created before `cutoff`, oldest first. */
  listPendingBefore(cutoff: Date, limit: number): Promise<StoredFile[]>;
  delete(ownerKeyId: string, id: string): Promise<boolean>;
  /** Records of every owner created before `cutoff`, oldest first. */
  listCreatedBefore(cutoff: Date, limit: number): Promise<StoredFile[]>;
}
