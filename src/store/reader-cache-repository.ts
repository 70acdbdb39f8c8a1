import type { ReadResult } from '../core/web/web-reader.ts';
import type { Database } from './database.ts';

/** Read pages kept for a while, so the same URL read twice is fetched once (table `reader_cache`). */
export class ReaderCacheRepository {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  /** The cached result under `key`, unless it expired at `now` (Unix ms). */
  async get(key: string, now: number): Promise<ReadResult | undefined> {
    const row = await this.#database.db.selectFrom('reader_cache').select(['result', 'expires_at']).where('cache_key', '=', key).executeTakeFirst();
    if (row === undefined || Number(row.expires_at) <= now) return undefined;
    return JSON.parse(row.result) as ReadResult;
  }

  /** Stores (or replaces) the result under `key` until `expiresAt`, and drops rows that expired. */
  async put(key: string, result: ReadResult, now: number, expiresAt: number): Promise<void> {
    const values = { url: result.url, result: JSON.stringify(result), created_at: now, expires_at: expiresAt };
    await this.#database.db
      .insertInto('reader_cache')
      .values({ cache_key: key, ...values })
      .onConflict((conflict) => conflict.column('cache_key').doUpdateSet(values))
      .execute();
    // A miss costs a page fetch anyway; deleting what expired here keeps the table from growing.
    await this.#database.db.deleteFrom('reader_cache').where('expires_at', '<=', now).execute();
  }
}
