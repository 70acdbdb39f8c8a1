import type { Kysely } from 'kysely';

export async function up(database: Kysely<unknown>): Promise<void> {
  await database.schema
    .createTable('usage_records')
    .addColumn('id', 'varchar(40)', (column) => column.primaryKey())
    .addColumn('key_id', 'varchar(128)', (column) => column.notNull())
    .addColumn('model', 'varchar(200)', (column) => column.notNull())
    .addColumn('endpoint', 'varchar(100)', (column) => column.notNull())
    .addColumn('request_id', 'varchar(64)', (column) => column.notNull())
    .addColumn('prompt_tokens', 'bigint', (column) => column.notNull())
    .addColumn('completion_tokens', 'bigint', (column) => column.notNull())
    .addColumn('cached_tokens', 'bigint', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .execute();
  await database.schema.createIndex('usage_records_key_time').on('usage_records').columns(['key_id', 'created_at']).execute();
}

export async function down(database: Kysely<unknown>): Promise<void> {
  await database.schema.dropTable('usage_records').execute();
}
