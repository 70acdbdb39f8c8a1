import { sql, type Kysely } from 'kysely';
import { createRollupTrigger } from './0009-usage-ledger.ts';
import { isPostgres } from './dialect-of.ts';

/**
 * SQLite: the usage ledger's writer adds each batch's sums to `usage_daily` in the batch's own
 * transaction (src/store/usage/sqlite-ledger-writer.ts), as the PostgreSQL writer always did, so
 * the trigger of 0009 that added every row on its own goes. PostgreSQL: nothing changes.
 */
export async function up(database: Kysely<unknown>): Promise<void> {
  if (!isPostgres(database)) await sql`DROP TRIGGER usage_records_rollup`.execute(database);
}

export async function down(database: Kysely<unknown>): Promise<void> {
  if (!isPostgres(database)) await createRollupTrigger(database);
}
