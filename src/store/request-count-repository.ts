import { sql } from 'kysely';
import type { HourlyRequestCounts, ModelRequestCounts, RequestCountStore } from '../core/metrics/request-counts.ts';
import type { Database } from './database.ts';

/**
 * Every node's model calls by UTC hour and model (`request_hourly`, migration 0015): each node
 * adds its counts with one INSERT ... ON CONFLICT DO UPDATE, atomic on SQLite and PostgreSQL
 * alike, so counts from several nodes for the same hour add up and none is lost.
 */
export class RequestCountRepository implements RequestCountStore {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  async add(counts: readonly HourlyRequestCounts[]): Promise<void> {
    if (counts.length === 0) return;
    await this.#database.db
      .insertInto('request_hourly')
      .values(
        counts.map((count) => ({
          hour_start: count.hourStart,
          model: count.model,
          requests: count.requests,
          errors: count.errors,
          refused: count.refused,
        })),
      )
      .onConflict((conflict) =>
        conflict.columns(['hour_start', 'model']).doUpdateSet({
          requests: sql`request_hourly.requests + excluded.requests`,
          errors: sql`request_hourly.errors + excluded.errors`,
          refused: sql`request_hourly.refused + excluded.refused`,
        }),
      )
      .execute();
  }

  async since(fromMs: number): Promise<ModelRequestCounts[]> {
    const rows = await this.#database.db
      .selectFrom('request_hourly')
      .select(({ fn }) => ['model', fn.sum<number>('requests').as('requests'), fn.sum<number>('errors').as('errors'), fn.sum<number>('refused').as('refused')])
      .where('hour_start', '>=', fromMs)
      .groupBy('model')
      .orderBy('model')
      .execute();
    // PostgreSQL answers bigint sums as strings.
    return rows.map((row) => ({ model: row.model, requests: Number(row.requests), errors: Number(row.errors), refused: Number(row.refused) }));
  }

  async dropBefore(cutoffMs: number): Promise<number> {
    const deleted = await this.#database.db.deleteFrom('request_hourly').where('hour_start', '<', cutoffMs).executeTakeFirst();
    return Number(deleted.numDeletedRows);
  }
}
