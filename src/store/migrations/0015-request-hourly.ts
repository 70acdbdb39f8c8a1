import type { Kysely } from 'kysely';

/**
 * `request_hourly`: model calls counted by every API node, summed by UTC hour and model (requests,
 * 5xx errors, 4xx refusals), so the console's month of requests and errors covers the fleet. Each
 * node adds its counts in one upsert a few seconds after the calls; the key is (hour, model).
 */
export async function up(database: Kysely<unknown>): Promise<void> {
  await database.schema
    .createTable('request_hourly')
    .addColumn('hour_start', 'bigint', (column) => column.notNull())
    .addColumn('model', 'varchar(200)', (column) => column.notNull())
    .addColumn('requests', 'bigint', (column) => column.notNull())
    .addColumn('errors', 'bigint', (column) => column.notNull())
    .addColumn('refused', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('request_hourly_pkey', ['hour_start', 'model'])
    .execute();
}

export async function down(database: Kysely<unknown>): Promise<void> {
  await database.schema.dropTable('request_hourly').execute();
}
