import { PostgresAdapter, type Kysely } from 'kysely';

/** Migrations that differ by database ask which one they run on. */
export function isPostgres(database: Kysely<unknown>): boolean {
  return database.getExecutor().adapter instanceof PostgresAdapter;
}
