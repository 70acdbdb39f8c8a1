import type { Kysely } from 'kysely';

/**
 * Table `tasks`: durable async tasks (docs/architecture.md, "Async tasks"). `status` is what clients see;
 * `state`, `lease_*` and `run_after` are the queue's own bookkeeping, so a worker that dies
 * mid-task leaves a lease that expires and the task is claimed again.
 */
export async function up(database: Kysely<unknown>): Promise<void> {
  await database.schema
    .createTable('tasks')
    .addColumn('id', 'varchar(64)', (column) => column.primaryKey())
    .addColumn('kind', 'varchar(32)', (column) => column.notNull())
    .addColumn('owner_key_id', 'varchar(128)', (column) => column.notNull())
    .addColumn('model', 'varchar(200)', (column) => column.notNull())
    .addColumn('request_id', 'varchar(64)', (column) => column.notNull())
    .addColumn('status', 'varchar(16)', (column) => column.notNull())
    .addColumn('state', 'varchar(16)', (column) => column.notNull())
    .addColumn('request', 'text', (column) => column.notNull())
    .addColumn('result', 'text')
    .addColumn('error_code', 'varchar(16)')
    .addColumn('error_message', 'text')
    .addColumn('attempts', 'integer', (column) => column.notNull())
    .addColumn('run_after', 'bigint', (column) => column.notNull())
    .addColumn('lease_owner', 'varchar(64)')
    .addColumn('lease_expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .addColumn('deadline_at', 'bigint', (column) => column.notNull())
    .execute();
  // Workers look for due queued tasks and expired leases, oldest first.
  await database.schema.createIndex('tasks_state_due').on('tasks').columns(['state', 'run_after']).execute();
}

export async function down(database: Kysely<unknown>): Promise<void> {
  await database.schema.dropTable('tasks').execute();
}
