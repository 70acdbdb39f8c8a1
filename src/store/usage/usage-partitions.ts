import { sql, type Kysely } from 'kysely';
import { dayMs } from './usage-day.ts';

/**
 * PostgreSQL keeps the usage ledger (`usage_records`) partitioned by UTC day, on `created_at`
 * (Unix ms): one partition `usage_records_pYYYYMMDD` per day, created ahead of time and on demand,
 * dropped whole by retention. No default partition: a row whose day has none is refused, so the
 * writer creates the day first (and a dropped day cannot quietly fill a catch-all table).
 */

/** Serializes partition changes across nodes (two nodes creating one day at once would collide in the catalog). */
const partitionLockId = 0x7573_6167;

const namePattern = /^usage_records_p(\d{4})(\d{2})(\d{2})$/;

function partitionName(day: number): string {
  return `usage_records_p${new Date(day * dayMs).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/** Creates the partitions of these days (days since 1970-01-01) that do not exist yet. */
export async function createDayPartitions<Schema>(db: Kysely<Schema>, days: Iterable<number>): Promise<void> {
  const wanted = [...new Set(days)].sort((left, right) => left - right);
  if (wanted.length === 0) return;
  await underPartitionLock(db, async (transaction) => {
    for (const day of wanted) {
      await sql`CREATE TABLE IF NOT EXISTS ${sql.table(partitionName(day))} PARTITION OF usage_records
        FOR VALUES FROM (${sql.lit(day * dayMs)}) TO (${sql.lit((day + 1) * dayMs)})`.execute(transaction);
    }
  });
}

/** The days that have a partition, in order. */
export async function listDayPartitions<Schema>(db: Kysely<Schema>): Promise<number[]> {
  const result = await sql<{ name: string }>`SELECT child.relname AS name FROM pg_inherits
    JOIN pg_class child ON child.oid = pg_inherits.inhrelid
    WHERE pg_inherits.inhparent = 'usage_records'::regclass`.execute(db);
  return result.rows
    .flatMap((row) => {
      const match = namePattern.exec(row.name);
      return match === null ? [] : [Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) / dayMs];
    })
    .sort((left, right) => left - right);
}

/** Drops the partitions of the days before `firstKeptDay`; returns how many. */
export async function dropDayPartitionsBefore<Schema>(db: Kysely<Schema>, firstKeptDay: number): Promise<number> {
  const expired = (await listDayPartitions(db)).filter((day) => day < firstKeptDay);
  if (expired.length === 0) return 0;
  await underPartitionLock(db, async (transaction) => {
    for (const day of expired) await sql`DROP TABLE IF EXISTS ${sql.table(partitionName(day))}`.execute(transaction);
  });
  return expired.length;
}

/** Runs `work` in a transaction holding the partition lock; inside one already (a migration), in that one. */
async function underPartitionLock<Schema>(db: Kysely<Schema>, work: (transaction: Kysely<Schema>) => Promise<void>): Promise<void> {
  const locked = async (transaction: Kysely<Schema>) => {
    await sql`SELECT pg_advisory_xact_lock(${sql.lit(partitionLockId)})`.execute(transaction);
    await work(transaction);
  };
  if (db.isTransaction) await locked(db);
  else await db.transaction().execute(locked);
}
