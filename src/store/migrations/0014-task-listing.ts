import type { Kysely } from 'kysely';

/**
 * Indexes for the task listing of the admin API (GET /admin/tasks): newest first over all tasks,
 * and newest first over one key's tasks (what a key holder sees, and an operator's key filter).
 */
export async function up(database: Kysely<unknown>): Promise<void> {
  await database.schema.createIndex('tasks_created').on('tasks').columns(['created_at', 'id']).execute();
  await database.schema.createIndex('tasks_owner_created').on('tasks').columns(['owner_key_id', 'created_at', 'id']).execute();
}

export async function down(database: Kysely<unknown>): Promise<void> {
  await database.schema.dropIndex('tasks_owner_created').execute();
  await database.schema.dropIndex('tasks_created').execute();
}
