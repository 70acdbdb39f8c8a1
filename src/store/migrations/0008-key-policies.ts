import type { Kysely } from 'kysely';

/**
 * Key policies and prepaid credit:
 * - `api_keys.policy`: the key's KeyPolicy as JSON text (src/core/limits/key-policy.ts); NULL is
 *   no policy: a user key without limits, as every key was before.
 * - `key_credits`: the spendable balance of a key with credit, in micro-units (holds taken off).
 * - `credit_holds`: credit held for submitted async work, settled once when its task succeeds and
 *   released once when it fails (`state` held -> settled | released, a conditional update).
 */
export async function up(database: Kysely<unknown>): Promise<void> {
  await database.schema.alterTable('api_keys').addColumn('policy', 'text').execute();
  await database.schema
    .createTable('key_credits')
    .addColumn('key_id', 'varchar(128)', (column) => column.primaryKey())
    .addColumn('balance', 'bigint', (column) => column.notNull())
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .execute();
  await database.schema
    .createTable('credit_holds')
    .addColumn('id', 'varchar(40)', (column) => column.primaryKey())
    .addColumn('key_id', 'varchar(128)', (column) => column.notNull())
    .addColumn('task_id', 'varchar(64)')
    .addColumn('model', 'varchar(200)', (column) => column.notNull())
    .addColumn('amount', 'bigint', (column) => column.notNull())
    .addColumn('state', 'varchar(16)', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .execute();
  // The reconciler reads the open holds only; finished ones pile up beside them.
  await database.schema.createIndex('credit_holds_state').on('credit_holds').columns(['state', 'created_at']).execute();
  await database.schema.createIndex('credit_holds_task').on('credit_holds').column('task_id').execute();
}

export async function down(database: Kysely<unknown>): Promise<void> {
  await database.schema.dropTable('credit_holds').execute();
  await database.schema.dropTable('key_credits').execute();
  await database.schema.alterTable('api_keys').dropColumn('policy').execute();
}
