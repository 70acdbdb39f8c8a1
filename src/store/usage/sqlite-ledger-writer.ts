import type SqliteDatabase from 'better-sqlite3';
import type { UsageDailyTable, UsageRecordTable } from '../database-schema.ts';
import { rollupSums, summedColumns } from './usage-rollup.ts';

/** A ledger row's columns, in the order the writer passes their values (summedColumns' order in the middle). */
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
type RecordParameters = [string, string, string, string, string, string, ...number[]];
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
    // Positional parameters, passed one by one: no list of values made for every row, and
    // better-sqlite3 binds them without looking each column's name up on the row (binding
    // by name costs the writer thread about a third more CPU a row).
    const insertRecord = sqlite.prepare<RecordParameters>(
      `INSERT INTO usage_records (${recordColumns.join(', ')}) VALUES (${recordColumns.map(() => '?').join(', ')})`,
    );
    const addToRollup = sqlite.prepare<[UsageDailyTable]>(
      `INSERT INTO usage_daily (${dailyColumns.join(', ')}) VALUES (${dailyColumns.map((column) => `@${column}`).join(', ')})
       ON CONFLICT (day, key_id, model, endpoint) DO UPDATE SET
       ${['calls', ...summedColumns].map((column) => `${column} = ${column} + excluded.${column}`).join(', ')}`,
    );
    this.#write = sqlite.transaction((rows: readonly UsageRecordTable[]) => {
      for (const row of rows) {
        insertRecord.run(
          row.id,
          row.key_id,
          row.model,
          row.endpoint,
          row.request_id,
          row.day,
          row.prompt_tokens,
          row.completion_tokens,
          row.cached_tokens,
          row.pages,
          row.audio_seconds,
          row.images,
          row.videos,
          row.searches,
          row.urls_read,
          row.cost,
          row.created_at,
        );
      }
      for (const sum of rollupSums(rows)) addToRollup.run(sum);
    });
  }

  /** One transaction holding the write lock from its start (BEGIN IMMEDIATE). */
  write(rows: readonly UsageRecordTable[]): void {
    this.#write.immediate(rows);
  }
}
