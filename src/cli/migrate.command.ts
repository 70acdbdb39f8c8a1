import type { CliFlags } from './cli-flags.ts';
import { withDatabase } from './with-database.ts';

/** Opening storage applies pending migrations (with-database.ts); this reports where storage stands. */
export async function runMigrate(flags: CliFlags): Promise<number> {
  await withDatabase(flags, async (database, settings) => {
    const where = database.dialect === 'postgres' ? 'PostgreSQL' : `SQLite in ${settings.dataDir}`;
    console.log(`Database schema is up to date (${where}).`);
  });
  return 0;
}
