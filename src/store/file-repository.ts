import { sql, type Selectable } from 'kysely';
import type { FileCursor, FileRecord, FileRecordQuery, FileRecords, FileState } from '../core/files/file-records.ts';
import type { StoredFile } from '../core/files/file-store.ts';
import type { Database } from './database.ts';
import type { FileTable } from './database-schema.ts';
import { writeTransaction } from './write-transaction.ts';

/** The `files` table: records of uploaded files (src/core/files), the same on SQLite and PostgreSQL. */
export class FileRepository implements FileRecords {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  async insertWithinLimit(file: StoredFile, maxFilesPerOwner: number, state: FileState = 'ready'): Promise<boolean> {
    // Counts, then inserts: on SQLite the transaction holds the write lock from its start.
    return writeTransaction(this.#database, async (transaction) => {
      if (this.#database.dialect === 'postgres') {
        // Serialises inserts of one owner until commit, so two uploads cannot both take the last place.
        // (SQLite runs one write transaction at a time already.)
        await sql`select pg_advisory_xact_lock(hashtext(${`files:${file.ownerKeyId}`}))`.execute(transaction);
      }
      const { count } = await transaction
        .selectFrom('files')
        .select((builder) => builder.fn.countAll<number | string>().as('count'))
        .where('owner_key_id', '=', file.ownerKeyId)
        .executeTakeFirstOrThrow();
      if (Number(count) >= maxFilesPerOwner) return false;
      await transaction
        .insertInto('files')
        .values({ ...toRow(file), state })
        .execute();
      return true;
    });
  }

  async count(ownerKeyId: string): Promise<number> {
    const { count } = await this.#database.db
      .selectFrom('files')
      .select((builder) => builder.fn.countAll<number | string>().as('count'))
      .where('owner_key_id', '=', ownerKeyId)
      .executeTakeFirstOrThrow();
    return Number(count);
  }

  async find(ownerKeyId: string, id: string): Promise<FileRecord | undefined> {
    const row = await this.#database.db.selectFrom('files').selectAll().where('id', '=', id).where('owner_key_id', '=', ownerKeyId).executeTakeFirst();
    return row === undefined ? undefined : { ...toStoredFile(row), state: row.state };
  }

  async markReady(ownerKeyId: string, id: string): Promise<boolean> {
    const result = await this.#database.db
      .updateTable('files')
      .set({ state: 'ready' })
      .where('id', '=', id)
      .where('owner_key_id', '=', ownerKeyId)
      .where('state', '=', 'pending')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async listPendingBefore(cutoff: Date, limit: number): Promise<StoredFile[]> {
    const rows = await this.#database.db
      .selectFrom('files')
      .selectAll()
      .where('state', '=', 'pending')
      .where('created_at', '<', cutoff.getTime())
      .orderBy('created_at')
      .limit(limit)
      .execute();
    return rows.map(toStoredFile);
  }

  async list(ownerKeyId: string, query: FileRecordQuery): Promise<StoredFile[]> {
    const direction = query.order;
    let select = this.#database.db.selectFrom('files').selectAll().where('owner_key_id', '=', ownerKeyId).where('state', '=', 'ready');
    if (query.purpose !== undefined) select = select.where('purpose', '=', query.purpose);
    if (query.after !== undefined) {
      const cursor: FileCursor = query.after;
      const beyond = direction === 'asc' ? '>' : '<';
      const createdAt = cursor.createdAt.getTime();
      select = select.where((builder) =>
        builder.or([builder('created_at', beyond, createdAt), builder.and([builder('created_at', '=', createdAt), builder('id', beyond, cursor.id)])]),
      );
    }
    const rows = await select.orderBy('created_at', direction).orderBy('id', direction).limit(query.limit).execute();
    return rows.map(toStoredFile);
  }

  async delete(ownerKeyId: string, id: string): Promise<boolean> {
    const result = await this.#database.db.deleteFrom('files').where('id', '=', id).where('owner_key_id', '=', ownerKeyId).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async listCreatedBefore(cutoff: Date, limit: number): Promise<StoredFile[]> {
    const rows = await this.#database.db
      .selectFrom('files')
      .selectAll()
      .where('created_at', '<', cutoff.getTime())
      .orderBy('created_at')
      .limit(limit)
      .execute();
    return rows.map(toStoredFile);
  }
}

function toRow(file: StoredFile): Omit<FileTable, 'state'> {
  return {
    id: file.id,
    owner_key_id: file.ownerKeyId,
    purpose: file.purpose,
    filename: file.filename,
    bytes: file.bytes,
    created_at: file.createdAt.getTime(),
  };
}

function toStoredFile(row: Selectable<FileTable>): StoredFile {
  return {
    id: row.id,
    ownerKeyId: row.owner_key_id,
    purpose: row.purpose,
    filename: row.filename,
    bytes: Number(row.bytes),
    createdAt: new Date(Number(row.created_at)),
  };
}
