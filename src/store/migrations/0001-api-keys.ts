import type { Kysely } from 'kysely';

export async function up(database: Kysely<unknown>): Promise<void> {
  await database.schema
    .createTable('api_keys')
    .addColumn('id', 'varchar(128)', (column) => column.primaryKey())
    .addColumn('secret_hash', 'varchar(128)', (column) => column.notNull())
    .addColumn('secret_sealed', 'text', (column) => column.notNull())
    .addColumn('name', 'varchar(200)')
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
}

export async function down(database: Kysely<unknown>): Promise<void> {
  await database.schema.dropTable('api_keys').execute();
}
