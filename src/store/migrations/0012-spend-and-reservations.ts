import { sql, type Kysely } from 'kysely';

/**
 * Spend in the ledger and credit reservations:
 * - `usage_records.cost`, `usage_daily.cost`: what each call cost, in integer micro-units, priced
 *   when recorded (0 for rows recorded before prices existed);
 * - `credit_holds` become the reservations of every call of a key with credit, sync ones
 *   included: `lease_until` (Unix ms) is renewed by the node while its call runs, so a dead node's
 *   reservations are released once it passes (NULL: tied to a task, whose end settles it);
 *   `spent` is what the settlement kept of `amount` (the rest went back to the balance).
 */
export async function up(database: Kysely<unknown>): Promise<void> {
  for (const table of ['usage_records', 'usage_daily']) {
    await database.schema
      .alterTable(table)
      .addColumn('cost', 'bigint', (column) => column.notNull().defaultTo(0))
      .execute();
  }
  await database.schema.alterTable('credit_holds').addColumn('lease_until', 'bigint').execute();
  await database.schema
    .alterTable('credit_holds')
    .addColumn('spent', 'bigint', (column) => column.notNull().defaultTo(0))
    .execute();
  // Holds settled before this migration kept their whole amount; open ones not tied to a task
  // (their node died before submitting) get the ten minutes they had before.
  await sql`UPDATE credit_holds SET spent = amount WHERE state = 'settled'`.execute(database);
  await sql`UPDATE credit_holds SET lease_until = created_at + 600000 WHERE state = 'held' AND task_id IS NULL`.execute(database);
}

export async function down(database: Kysely<unknown>): Promise<void> {
  await database.schema.alterTable('credit_holds').dropColumn('spent').execute();
  await database.schema.alterTable('credit_holds').dropColumn('lease_until').execute();
  for (const table of ['usage_daily', 'usage_records']) await database.schema.alterTable(table).dropColumn('cost').execute();
}
