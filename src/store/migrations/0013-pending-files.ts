import type { Kysely } from 'kysely';

/**
 * `files.state`: `pending` while a multi-step upload (a retrieval file being read and indexed) is
 * under way, `ready` once the file is usable. Listings show ready files only, so a crash midway
 * leaves no half-done file in a key's listing; the sweep removes pending files (and their bytes)
 * that were abandoned. Every file uploaded before this column existed was ready.
 */
export async function up(database: Kysely<unknown>): Promise<void> {
  await database.schema
    .alterTable('files')
    .addColumn('state', 'varchar(16)', (column) => column.notNull().defaultTo('ready'))
    .execute();
  // The sweep reads the oldest pending files of every owner.
  await database.schema.createIndex('files_state_created').on('files').columns(['state', 'created_at']).execute();
}

export async function down(database: Kysely<unknown>): Promise<void> {
  await database.schema.dropIndex('files_state_created').execute();
  await database.schema.alterTable('files').dropColumn('state').execute();
}
