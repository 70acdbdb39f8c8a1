import type { Kysely } from 'kysely';

/**
 * Table `files`: uploaded files (POST /paas/v4/files), one row per file; the bytes are in the blob
 * store under `files/<id>`. Times in Unix ms, like every other table.
 */
export async function up(database: Kysely<unknown>): Promise<void> {
  await database.schema
    .createTable('files')
    .addColumn('id', 'varchar(64)', (column) => column.primaryKey())
    .addColumn('owner_key_id', 'varchar(128)', (column) => column.notNull())
    .addColumn('purpose', 'varchar(64)', (column) => column.notNull())
    .addColumn('filename', 'text', (column) => column.notNull())
    .addColumn('bytes', 'bigint', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .execute();
  // Listings and the per-key count read one owner's files by creation time.
  await database.schema.createIndex('files_owner_created').on('files').columns(['owner_key_id', 'created_at', 'id']).execute();
  // The retention sweep reads the oldest files of every owner.
  await database.schema.createIndex('files_created').on('files').column('created_at').execute();
}

export async function down(database: Kysely<unknown>): Promise<void> {
  await database.schema.dropTable('files').execute();
}
