import { sql } from 'kysely';
import type { Database } from '../database.ts';
import { usageGroupings, type UsageGrouping, type UsageReportQuery, type UsageReportRow } from '../../core/usage/usage-report.ts';

const groupColumns: Readonly<Record<UsageGrouping, string>> = {
  day: 'usage_daily.day',
  key: 'usage_daily.key_id',
  model: 'usage_daily.model',
  endpoint: 'usage_daily.endpoint',
};

const sums = {
  calls: 'calls',
  promptTokens: 'prompt_tokens',
  completionTokens: 'completion_tokens',
  cachedTokens: 'cached_tokens',
  pages: 'pages',
  audioSeconds: 'audio_seconds',
  images: 'images',
  videos: 'videos',
  searches: 'searches',
  urlsRead: 'urls_read',
  cost: 'cost',
} as const;

/** Usage reports (`model-platform usage report`), read from the daily rollups, not the ledger rows. */
export class UsageReportRepository {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  async report(query: UsageReportQuery): Promise<UsageReportRow[]> {
    const by = usageGroupings.filter((grouping) => query.by.includes(grouping));
    const groups = by.map((grouping) => sql.ref(groupColumns[grouping]));
    // The key's name comes along when grouped by key; a revoked or deleted key still shows its id.
    if (by.includes('key')) groups.push(sql.ref('api_keys.name'));
    const selected = [
      ...by.map((grouping) => sql`${sql.ref(groupColumns[grouping])} AS ${sql.ref(grouping)}`),
      ...(by.includes('key') ? [sql`api_keys.name AS key_name`] : []),
      ...Object.values(sums).map((column) => sql`sum(${sql.ref(`usage_daily.${column}`)}) AS ${sql.ref(column)}`),
    ];
    const result = await sql<Record<string, string | number | null>>`
      SELECT ${sql.join(selected)}
      FROM usage_daily LEFT JOIN api_keys ON api_keys.id = usage_daily.key_id
      WHERE usage_daily.day >= ${query.from} AND usage_daily.day <= ${query.to}
      ${query.keyId === undefined ? sql`` : sql`AND usage_daily.key_id = ${query.keyId}`}
      ${query.model === undefined ? sql`` : sql`AND usage_daily.model = ${query.model}`}
      ${groups.length === 0 ? sql`` : sql`GROUP BY ${sql.join(groups)} ORDER BY ${sql.join(groups)}`}`.execute(this.#database.db);
    return result.rows.map((row) => {
      const text = (name: string) => (row[name] === null || row[name] === undefined ? undefined : String(row[name]));
      return {
        ...(by.includes('day') ? { day: String(row['day']) } : {}),
        ...(by.includes('key') ? { keyId: String(row['key']), keyName: text('key_name') } : {}),
        ...(by.includes('model') ? { model: String(row['model']) } : {}),
        ...(by.includes('endpoint') ? { endpoint: String(row['endpoint']) } : {}),
        ...(Object.fromEntries(Object.entries(sums).map(([field, column]) => [field, Number(row[column] ?? 0)])) as Record<keyof typeof sums, number>),
      };
    });
  }
}
