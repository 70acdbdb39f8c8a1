import type SqliteDatabase from 'better-sqlite3';
import type { UsageDailyTable, UsageRecordTable } from '../database-schema.ts';
import { rollupSums, summedColumns } from './usage-rollup.ts';

const recordColumns = [
  'id',
  'key_id',
  'model',
  'endpoint',
  'request_id',
  'day',
  ...summedColumns,
  'created_at',
] as const satisfies readonly (keyof UsageRecordTable)[];
const dailyColumns = ['day', 'key_id', 'model', 'endpoint', 'calls', ...summedColumns] as const satisfies readonly (keyof UsageDailyTable)[];

/**
 * Writes ledger batches on SQLite: the rows and the batch's sums for the daily rollups in one
 * synchronous transaction, through statements prepared once rather than a query built and
 * compiled for every batch (or a trigger run for every row). It runs in the ledger's writer thread
 * on a connection of its own (sqlite-ledger-worker.ts).
 */
export class SqliteLedgerWriter {
  readonly #write: SqliteDatabase.Transaction<(rows: readonly UsageRecordTable[]) => void>;

  constructor(sqlite: SqliteDatabase.Database) {
    // Named parameters, bound from the row itself: no list of values made for every row.
    const insertRecord = sqlite.prepare<[UsageRecordTable]>(
      `INSERT INTO usage_records (${recordColumns.join(', ')}) VALUES (${recordColumns.map((column) => `@${column}`).join(', ')})`,
    );
    const addToRollup = sqlite.prepare<[UsageDailyTable]>(
      `INSERT INTO usage_daily (${dailyColumns.join(', ')}) VALUES (${dailyColumns.map((column) => `@${column}`).join(', ')})
       ON CONFLICT (day, key_id, model, endpoint) DO UPDATE SET
       ${['calls', ...summedColumns].map((column) => `${column} = ${column} + excluded.${column}`).join(', ')}`,
    );
    this.#write = sqlite.transaction((rows: readonly UsageRecordTable[]) => {
      for (const row of rows) insertRecord.run(row);
      for (const sum of rollupSums(rows)) addToRollup.run(sum);
    });
  }

  /** One transaction holding the write lock from its start (BEGIN IMMEDIATE). */
  write(rows: readonly UsageRecordTable[]): void {
    this.#write.immediate(rows);
  }
}
