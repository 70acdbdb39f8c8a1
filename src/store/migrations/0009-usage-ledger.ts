import { sql, type Kysely } from 'kysely';
import { dayMs } from '../usage/usage-day.ts';
import { createDayPartitions } from '../usage/usage-partitions.ts';
import { isPostgres } from './dialect-of.ts';

/**
 * The usage ledger:
 * - `usage_records` gains `day` (the UTC day, `YYYY-MM-DD`) and the non-token units, 0 by default:
 *   pages, audio_seconds, images, videos, searches, urls_read. PostgreSQL: the table becomes
 *   partitioned by day on created_at (src/store/usage/usage-partitions.ts), its rows copied
 *   over; SQLite: the columns are added in place and `day` is indexed (retention deletes by it).
 * - `usage_daily`: sums by day, key, model and endpoint (the reports read it), filled here from the
 *   rows that exist. PostgreSQL: the writer adds each batch's sums in the batch's transaction;
 *   SQLite: a trigger adds each row's, so a batch stays one statement (a transaction spanning
 *   awaits would hold SQLite's single write lock while other connections of the process block).
 */
export async function up(database: Kysely<unknown>): Promise<void> {
  if (isPostgres(database)) await partitionLedger(database);
  else await extendLedgerInPlace(database);
  await sql`CREATE TABLE usage_daily (
    day varchar(10) NOT NULL,
    key_id varchar(128) NOT NULL,
    model varchar(200) NOT NULL,
    endpoint varchar(100) NOT NULL,
    calls bigint NOT NULL,
    ${sql.raw(sumColumns.map(([name, type]) => `${name} ${type} NOT NULL`).join(',\n    '))},
    PRIMARY KEY (day, key_id, model, endpoint)
  )`.execute(database);
  await sql`INSERT INTO usage_daily (day, key_id, model, endpoint, calls, ${sql.raw(sumNames.join(', '))})
    SELECT day, key_id, model, endpoint, count(*), ${sql.raw(sumNames.map((name) => `sum(${name})`).join(', '))}
    FROM usage_records GROUP BY day, key_id, model, endpoint`.execute(database);
  if (!isPostgres(database)) await createRollupTrigger(database);
}

export async function down(database: Kysely<unknown>): Promise<void> {
  if (!isPostgres(database)) await sql`DROP TRIGGER usage_records_rollup`.execute(database);
  await database.schema.dropTable('usage_daily').execute();
  if (!isPostgres(database)) {
    await database.schema.dropIndex('usage_records_day').execute();
    for (const name of ['day', ...unitNames]) await database.schema.alterTable('usage_records').dropColumn(name).execute();
    return;
  }
  await sql`ALTER TABLE usage_records RENAME TO usage_records_0009`.execute(database);
  await sql`ALTER INDEX usage_records_pkey RENAME TO usage_records_0009_pkey`.execute(database);
  await sql`ALTER INDEX usage_records_key_time RENAME TO usage_records_0009_key_time`.execute(database);
  await sql`CREATE TABLE usage_records (
    id varchar(40) PRIMARY KEY, key_id varchar(128) NOT NULL, model varchar(200) NOT NULL,
    endpoint varchar(100) NOT NULL, request_id varchar(64) NOT NULL, prompt_tokens bigint NOT NULL,
    completion_tokens bigint NOT NULL, cached_tokens bigint NOT NULL, created_at bigint NOT NULL)`.execute(database);
  await sql`CREATE INDEX usage_records_key_time ON usage_records (key_id, created_at)`.execute(database);
  await sql`INSERT INTO usage_records SELECT ${sql.raw(legacyColumns)} FROM usage_records_0009`.execute(database);
  await sql`DROP TABLE usage_records_0009`.execute(database);
}

/** SQLite: adds each new ledger row to its daily rollup (until 0010 moved that into the writer's batches). */
export async function createRollupTrigger(database: Kysely<unknown>): Promise<void> {
  await sql`CREATE TRIGGER usage_records_rollup AFTER INSERT ON usage_records BEGIN
    INSERT INTO usage_daily (day, key_id, model, endpoint, calls, ${sql.raw(sumNames.join(', '))})
    VALUES (NEW.day, NEW.key_id, NEW.model, NEW.endpoint, 1, ${sql.raw(sumNames.map((name) => `NEW.${name}`).join(', '))})
    ON CONFLICT (day, key_id, model, endpoint) DO UPDATE SET calls = calls + 1,
      ${sql.raw(sumNames.map((name) => `${name} = ${name} + excluded.${name}`).join(', '))};
  END`.execute(database);
}

/** The summed columns of the ledger, as both tables declare them. */
const sumColumns = [
  ['prompt_tokens', 'bigint'],
  ['completion_tokens', 'bigint'],
  ['cached_tokens', 'bigint'],
  ['pages', 'bigint'],
  ['audio_seconds', 'double precision'],
  ['images', 'bigint'],
  ['videos', 'bigint'],
  ['searches', 'bigint'],
  ['urls_read', 'bigint'],
] as const;
const sumNames = sumColumns.map(([name]) => name);
const unitNames = sumNames.slice(3);
const legacyColumns = 'id, key_id, model, endpoint, request_id, prompt_tokens, completion_tokens, cached_tokens, created_at';

async function extendLedgerInPlace(database: Kysely<unknown>): Promise<void> {
  await database.schema
    .alterTable('usage_records')
    .addColumn('day', 'varchar(10)', (column) => column.notNull().defaultTo(''))
    .execute();
  await sql`UPDATE usage_records SET day = strftime('%Y-%m-%d', created_at / 1000, 'unixepoch')`.execute(database);
  for (const [name, type] of sumColumns.slice(3)) {
    await database.schema
      .alterTable('usage_records')
      .addColumn(name, type, (column) => column.notNull().defaultTo(0))
      .execute();
  }
  await database.schema.createIndex('usage_records_day').on('usage_records').column('day').execute();
}

/** A partitioned table cannot be made from a plain one in place: a new one, the rows copied over. */
async function partitionLedger(database: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE usage_records RENAME TO usage_records_0002`.execute(database);
  await sql`ALTER INDEX usage_records_pkey RENAME TO usage_records_0002_pkey`.execute(database);
  await sql`ALTER INDEX usage_records_key_time RENAME TO usage_records_0002_key_time`.execute(database);
  await sql`CREATE TABLE usage_records (
    id varchar(40) NOT NULL,
    key_id varchar(128) NOT NULL,
    model varchar(200) NOT NULL,
    endpoint varchar(100) NOT NULL,
    request_id varchar(64) NOT NULL,
    day varchar(10) NOT NULL,
    ${sql.raw(sumColumns.map(([name, type]) => `${name} ${type} NOT NULL DEFAULT 0`).join(',\n    '))},
    created_at bigint NOT NULL,
    PRIMARY KEY (id, created_at)
  ) PARTITION BY RANGE (created_at)`.execute(database);
  await sql`CREATE INDEX usage_records_key_time ON usage_records (key_id, created_at)`.execute(database);
  const existing = await sql<{ day: number | string }>`SELECT DISTINCT created_at / ${sql.lit(dayMs)} AS day FROM usage_records_0002`.execute(database);
  const today = Math.floor(Date.now() / dayMs);
  const ahead = Array.from({ length: 8 }, (_unused, index) => today + index);
  await createDayPartitions(database, [...existing.rows.map((row) => Number(row.day)), ...ahead]);
  await sql`INSERT INTO usage_records (${sql.raw(legacyColumns)}, day)
    SELECT ${sql.raw(legacyColumns)}, to_char(to_timestamp(created_at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')
    FROM usage_records_0002`.execute(database);
  await sql`DROP TABLE usage_records_0002`.execute(database);
}
