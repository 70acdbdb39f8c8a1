import { sql } from 'kysely';
import type { Database } from './database.ts';

/** Reads over the usage ledger (`usage_records`) for key limits. */
export class UsageSummaryRepository {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  /** Prompt plus completion tokens a key used since a time (seeds a token quota window). */
  async tokensSince(keyId: string, since: number): Promise<number> {
    const row = await this.#database.db
      .selectFrom('usage_records')
      .select(sql<number | string | null>`sum(prompt_tokens + completion_tokens)`.as('total'))
      .where('key_id', '=', keyId)
      .where('created_at', '>=', since)
      .executeTakeFirstOrThrow();
    return Number(row.total ?? 0);
  }
}
