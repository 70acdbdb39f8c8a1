import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { DatabaseSchema, UsageDailyTable, UsageRecordTable } from '../database-schema.ts';
import { rollupSums, summedColumns } from './usage-rollup.ts';

/** The PostgreSQL type of each summed column's array (their columns' types, migration 0009). */
const summedTypes: Readonly<Record<(typeof summedColumns)[number], string>> = {
  prompt_tokens: 'bigint',
  completion_tokens: 'bigint',
  cached_tokens: 'bigint',
  pages: 'bigint',
  audio_seconds: 'float8',
  images: 'bigint',
  videos: 'bigint',
  searches: 'bigint',
  urls_read: 'bigint',
  cost: 'bigint',
};

const recordColumns: readonly [keyof UsageRecordTable, string][] = [
  ['id', 'text'],
  ['key_id', 'text'],
  ['model', 'text'],
  ['endpoint', 'text'],
  ['request_id', 'text'],
  ['day', 'text'],
  ...summedColumns.map((column): [keyof UsageRecordTable, string] => [column, summedTypes[column]]),
  ['created_at', 'bigint'],
];
const dailyColumns: readonly [keyof UsageDailyTable, string][] = [
  ['day', 'text'],
  ['key_id', 'text'],
  ['model', 'text'],
  ['endpoint', 'text'],
  ['calls', 'bigint'],
  ...summedColumns.map((column): [keyof UsageDailyTable, string] => [column, summedTypes[column]]),
];

/**
 * PostgreSQL: a ledger batch and its sums for the daily rollups, in the caller's transaction, as
 * two statements of the same text every time: each column travels as one array parameter that
 * `unnest` turns back into rows. A multi-row VALUES list would make a 500-row batch 8500
 * parameters and a query that Kysely builds and PostgreSQL plans anew for every batch.
 */
export async function writePostgresBatch(transaction: Transaction<DatabaseSchema>, rows: readonly UsageRecordTable[]): Promise<void> {
  await insertColumns(transaction, 'usage_records', recordColumns, rows);
  const added = sql.raw(['calls', ...summedColumns].map((column) => `${column} = usage_daily.${column} + excluded.${column}`).join(', '));
  await insertColumns(transaction, 'usage_daily', dailyColumns, rollupSums(rows), sql`ON CONFLICT (day, key_id, model, endpoint) DO UPDATE SET ${added}`);
}

/** INSERT INTO table (columns) SELECT * FROM unnest(one typed array per column), then `tail`. */
async function insertColumns<Row>(
  transaction: Transaction<DatabaseSchema>,
  table: string,
  columns: readonly [keyof Row, string][],
  rows: readonly Row[],
  tail: RawBuilder<unknown> = sql``,
): Promise<void> {
  const names = sql.raw(columns.map(([column]) => String(column)).join(', '));
  const arrays = sql.join(columns.map(([column, type]) => sql`${rows.map((row) => row[column])}::${sql.raw(type)}[]`));
  await sql`INSERT INTO ${sql.table(table)} (${names}) SELECT * FROM unnest(${arrays}) ${tail}`.execute(transaction);
}
