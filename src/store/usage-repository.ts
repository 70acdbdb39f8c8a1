import { randomUUID } from 'node:crypto';
import type { UsageRecord } from '../core/usage/usage-record.ts';
import type { Database } from './database.ts';

/** The usage ledger in the database: written in batches, read by key. */
export class UsageRepository {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  async insertMany(records: readonly UsageRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.#database.db
      .insertInto('usage_records')
      .values(
        records.map((record) => ({
          id: randomUUID(),
          key_id: record.keyId,
          model: record.model,
          endpoint: record.endpoint,
          request_id: record.requestId,
          prompt_tokens: record.promptTokens,
          completion_tokens: record.completionTokens,
          cached_tokens: record.cachedTokens,
          created_at: record.createdAt,
        })),
      )
      .execute();
  }

  async listForKey(keyId: string): Promise<UsageRecord[]> {
    const rows = await this.#database.db
      .selectFrom('usage_records')
      .selectAll()
      .where('key_id', '=', keyId)
      .orderBy('created_at')
      .execute();
    return rows.map((row) => ({
      keyId: row.key_id,
      model: row.model,
      endpoint: row.endpoint,
      requestId: row.request_id,
      promptTokens: Number(row.prompt_tokens),
      completionTokens: Number(row.completion_tokens),
      cachedTokens: Number(row.cached_tokens),
      createdAt: Number(row.created_at),
    }));
  }
}
