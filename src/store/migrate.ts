import { Migrator, type MigrationResultSet } from 'kysely';
import type { Database } from './database.ts';
import { migrations } from './migrations/index.ts';

/** Applies every pending migration; throws with the failing migration's name. */
export async function migrateToLatest(database: Database): Promise<string[]> {
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: () => Promise.resolve(migrations) },
  });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error !== undefined) {
    const failed = result.results?.find((item) => item.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${(result.error as Error).message}`);
  }
  return (result.results ?? []).filter((item) => item.status === 'Success').map((item) => item.migrationName);
}
