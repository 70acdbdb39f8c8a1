import { sql } from 'kysely';
import type { Database } from './database.ts';

const dayMs = 86_400_000;

export interface UsageSummaryQuery {
  /** Unix ms, inclusive. */
  readonly from: number;
  /** Unix ms, exclusive. */
  readonly to: number;
  readonly keyId?: string | undefined;
  readonly model?: string | undefined;
}

/** The calls and tokens of one key and model on one UTC day. */
export interface UsageSummaryRow {
  readonly keyId: string;
  readonly model: string;
  /** Start of the UTC day, Unix ms. */
  readonly day: number;
  readonly calls: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
}

/** Reads over the usage ledger (`usage_records`) for key limits and the admin API. */
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

  /** Usage by key, model and UTC day (integer division of the ms timestamp: the same on SQLite and PostgreSQL). */
  async summarize(query: UsageSummaryQuery): Promise<UsageSummaryRow[]> {
    const day = sql<number | string>`created_at / ${sql.lit(dayMs)}`;
    let select = this.#database.db
      .selectFrom('usage_records')
      .select([
        'key_id',
        'model',
        day.as('day'),
        (builder) => builder.fn.countAll<number | string>().as('calls'),
        (builder) => builder.fn.sum<number | string>('prompt_tokens').as('prompt_tokens'),
        (builder) => builder.fn.sum<number | string>('completion_tokens').as('completion_tokens'),
      ])
      .where('created_at', '>=', query.from)
      .where('created_at', '<', query.to);
    if (query.keyId !== undefined) select = select.where('key_id', '=', query.keyId);
    if (query.model !== undefined) select = select.where('model', '=', query.model);
    const rows = await select.groupBy(['key_id', 'model', day]).orderBy(day).orderBy('key_id').orderBy('model').limit(10_000).execute();
    return rows.map((row) => ({
      keyId: row.key_id,
      model: row.model,
      day: Number(row.day) * dayMs,
      calls: Number(row.calls),
      promptTokens: Number(row.prompt_tokens),
      completionTokens: Number(row.completion_tokens),
    }));
  }
}
