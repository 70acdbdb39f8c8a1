import type SqliteDatabase from 'better-sqlite3';
import type { UsageDailyTable, UsageRecordTable } from '../database-schema.ts';
import { rollupSums, summedColumns } from './usage-rollup.ts';

/** A ledger row's columns, in the order of the INSERTs' parameters. */
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
/**
 * Rows one multi-row INSERT writes: a statement run for many rows costs the writer thread less a
 * row than one run a row (about a sixth less), and 25 rows' 425 parameters stay far below
 * SQLite's limit on them.
 */
const rowsPerInsert = 25;
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
    // Positional parameters in lists made once and refilled: better-sqlite3 binds them without
    // looking each column's name up on the row (binding by name cost about a third more a row).
    const rowValues = `(${recordColumns.map(() => '?').join(', ')})`;
    const insertOne = sqlite.prepare<[unknown[]]>(`INSERT INTO usage_records (${recordColumns.join(', ')}) VALUES ${rowValues}`);
    const insertMany = sqlite.prepare<[unknown[]]>(
      `INSERT INTO usage_records (${recordColumns.join(', ')}) VALUES ${new Array<string>(rowsPerInsert).fill(rowValues).join(', ')}`,
    );
    const oneRow = new Array<unknown>(recordColumns.length);
    const manyRows = new Array<unknown>(rowsPerInsert * recordColumns.length);
    const addToRollup = sqlite.prepare<[UsageDailyTable]>(
      `INSERT INTO usage_daily (${dailyColumns.join(', ')}) VALUES (${dailyColumns.map((column) => `@${column}`).join(', ')})
       ON CONFLICT (day, key_id, model, endpoint) DO UPDATE SET
       ${['calls', ...summedColumns].map((column) => `${column} = ${column} + excluded.${column}`).join(', ')}`,
    );
    this.#write = sqlite.transaction((rows: readonly UsageRecordTable[]) => {
      let next = 0;
      for (; next + rowsPerInsert <= rows.length; next += rowsPerInsert) {
        for (let index = 0; index < rowsPerInsert; index += 1) putRow(manyRows, index * recordColumns.length, rows[next + index] as UsageRecordTable);
        insertMany.run(manyRows);
      }
      for (; next < rows.length; next += 1) {
        putRow(oneRow, 0, rows[next] as UsageRecordTable);
        insertOne.run(oneRow);
      }
      for (const sum of rollupSums(rows)) addToRollup.run(sum);
    });
  }

  /** One transaction holding the write lock from its start (BEGIN IMMEDIATE). */
  write(rows: readonly UsageRecordTable[]): void {
    this.#write.immediate(rows);
  }
}

/**
 * Puts a row's values in `values` from `at`, in recordColumns' order: read through that list, so a
 * column added to it (or to summedColumns) can never land in another column's place.
 */
function putRow(values: unknown[], at: number, row: UsageRecordTable): void {
  for (let index = 0; index < recordColumns.length; index += 1) values[at + index] = row[recordColumns[index] as (typeof recordColumns)[number]];
}
