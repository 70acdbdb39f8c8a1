import { readSettings, type Settings } from '../core/config/settings.ts';
import { openDatabase, type Database } from '../store/database.ts';
import { migrateToLatest } from '../store/migrate.ts';
import type { CliFlags } from './cli-flags.ts';

/**
 * Opens storage for a one-shot command that needs only the database (keys, knowledge, usage,
 * migrate), applies pending migrations as opening the platform would, and always closes it.
 * Opening the whole platform would load every engine, tool and the HTTP stack to answer one
 * query. A pooled connection's failure goes to stderr: stdout is the command's answer.
 */
export async function withDatabase<Result>(flags: CliFlags, work: (database: Database, settings: Settings) => Promise<Result>): Promise<Result> {
  const settings = readSettings(process.env, flags);
  const database = openDatabase({ ...settings, log: (message, error) => console.error(`model-platform: ${message}:`, error) });
  try {
    await migrateToLatest(database);
    return await work(database, settings);
  } finally {
    await database.close();
  }
}
