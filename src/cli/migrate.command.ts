import type { CliFlags } from './cli-flags.ts';
import { withPlatform } from './with-platform.ts';

/** Opening the platform applies pending migrations; this reports where storage stands. */
export async function runMigrate(flags: CliFlags): Promise<number> {
  await withPlatform(flags, async (platform) => {
    const where = platform.database.dialect === 'postgres' ? 'PostgreSQL' : `SQLite in ${platform.settings.dataDir}`;
    console.log(`Database schema is up to date (${where}).`);
  });
  return 0;
}
