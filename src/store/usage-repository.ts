import type { UsageLedgerHousekeeping } from '../core/usage/usage-retention.ts';
import type { UsageRecord } from '../core/usage/usage-record.ts';
import type { Database } from './database.ts';
import { dayMs, dayNumber, utcDay } from './usage/usage-day.ts';
import { createDayPartitions, dropDayPartitionsBefore } from './usage/usage-partitions.ts';
import { writePostgresBatch } from './usage/postgres-ledger-writer.ts';
import { toLedgerRows } from './usage/ledger-row.ts';
import { SqliteLedgerThread } from './usage/sqlite-ledger-thread.ts';

/**
 * The usage ledger in the database: append-only rows written in batches by the UsageRecorder,
 * each batch atomic with its daily rollups (`usage_daily`), so the reports never see half a
 * batch: one transaction writes the rows and adds the batch's sums (PostgreSQL:
 * postgres-ledger-writer.ts; SQLite: sqlite-ledger-writer.ts). Nothing updates or deletes a row except
 * retention, whole days at a time: on PostgreSQL by dropping the day's partition, on SQLite by a DELETE.
 */
export class UsageRepository implements UsageLedgerHousekeeping {
  readonly #database: Database;
  /** Days whose partition this process has made sure of (PostgreSQL). */
  readonly #preparedDays = new Set<number>();
  /** SQLite: the writer thread, started at the first batch (the tables exist by then). */
  #sqliteThread: SqliteLedgerThread | undefined;

  constructor(database: Database) {
    this.#database = database;
  }

  async insertMany(records: readonly UsageRecord[]): Promise<void> {
    if (records.length === 0) return;
    const sqlite = this.#database.sqlite;
    if (sqlite !== undefined) {
      this.#sqliteThread ??= new SqliteLedgerThread(sqlite.name);
      await this.#sqliteThread.write(records);
      return;
    }
    const rows = toLedgerRows(records);
    await this.#prepare(records.map((record) => dayNumber(record.createdAt)));
    await this.#database.db.transaction().execute((transaction) => writePostgresBatch(transaction, rows));
  }

  /** Ends the SQLite writer thread once its batches are written (before the database closes). */
  async close(): Promise<void> {
    await this.#sqliteThread?.close();
    this.#sqliteThread = undefined;
  }

  async listForKey(keyId: string): Promise<UsageRecord[]> {
    const rows = await this.#database.db.selectFrom('usage_records').selectAll().where('key_id', '=', keyId).orderBy('created_at').execute();
    return rows.map((row) => ({
      keyId: row.key_id,
      model: row.model,
      endpoint: row.endpoint,
      requestId: row.request_id,
      promptTokens: Number(row.prompt_tokens),
      completionTokens: Number(row.completion_tokens),
      cachedTokens: Number(row.cached_tokens),
      units: {
        pages: Number(row.pages),
        audioSeconds: Number(row.audio_seconds),
        images: Number(row.images),
        videos: Number(row.videos),
        searches: Number(row.searches),
        urlsRead: Number(row.urls_read),
      },
      cost: Number(row.cost),
      createdAt: Number(row.created_at),
    }));
  }

  async prepareDays(now: number, daysAhead: number): Promise<void> {
    if (this.#database.dialect !== 'postgres') return;
    const today = dayNumber(now);
    await this.#prepare(
      Array.from({ length: daysAhead + 1 }, (_unused, index) => today + index),
      true,
    );
  }

  /** PostgreSQL: partitions dropped; SQLite: rows deleted. */
  async dropDaysBefore(cutoffMs: number): Promise<number> {
    const firstKeptDay = dayNumber(cutoffMs);
    if (this.#database.dialect === 'postgres') {
      for (const day of this.#preparedDays) if (day < firstKeptDay) this.#preparedDays.delete(day);
      return dropDayPartitionsBefore(this.#database.db, firstKeptDay);
    }
    const deleted = await this.#database.db
      .deleteFrom('usage_records')
      .where('day', '<', utcDay(firstKeptDay * dayMs))
      .executeTakeFirst();
    return Number(deleted.numDeletedRows);
  }

  /** Creates the partitions of these days unless this process already knows them (or `always`). */
  async #prepare(days: readonly number[], always = false): Promise<void> {
    const missing = always ? [...new Set(days)] : [...new Set(days)].filter((day) => !this.#preparedDays.has(day));
    if (missing.length === 0) return;
    await createDayPartitions(this.#database.db, missing);
    for (const day of missing) this.#preparedDays.add(day);
  }
}
