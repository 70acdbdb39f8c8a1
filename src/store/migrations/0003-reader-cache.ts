import type { Kysely } from 'kysely';

/** The web reader's cache: one row per (URL, output options), read until it expires. */
export async function up(database: Kysely<unknown>): Promise<void> {
  await database.schema
    .createTable('reader_cache')
    .addColumn('cache_key', 'varchar(64)', (column) => column.primaryKey())
    .addColumn('url', 'text', (column) => column.notNull())
    .addColumn('result', 'text', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .execute();
  await database.schema.createIndex('reader_cache_expires').on('reader_cache').column('expires_at').execute();
}

export async function down(database: Kysely<unknown>): Promise<void> {
  await database.schema.dropTable('reader_cache').execute();
}
