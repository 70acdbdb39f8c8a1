import type { Migration } from 'kysely';
import * as apiKeys from './0001-api-keys.ts';
import * as usageRecords from './0002-usage-records.ts';

/** Every migration, in order; the names are recorded in the database and must never change. */
export const migrations: Record<string, Migration> = {
  '0001-api-keys': apiKeys,
  '0002-usage-records': usageRecords,
};
