import type { StoredFile } from './file-store.ts';

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
  insertWithinLimit(file: StoredFile, maxFilesPerOwner: number): Promise<boolean>;
  count(ownerKeyId: string): Promise<number>;
  find(ownerKeyId: string, id: string): Promise<StoredFile | undefined>;
  /** Ordered by creation time, then id (ties). */
  list(ownerKeyId: string, query: FileRecordQuery): Promise<StoredFile[]>;
  delete(ownerKeyId: string, id: string): Promise<boolean>;
  /** Records of every owner created before `cutoff`, oldest first. */
  listCreatedBefore(cutoff: Date, limit: number): Promise<StoredFile[]>;
}
