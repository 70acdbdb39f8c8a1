import type { Kysely } from 'kysely';

/**
 * Table `agent_conversations`: conversations of the agents that keep one (slides_glm_agent), so a
 * follow-up message revises what came before and POST /v1/agents/conversation can show it.
 * `messages` and `state` are JSON the agent writes; `revision` lets a turn save only over the
 * state it started from.
 */
export async function up(database: Kysely<unknown>): Promise<void> {
  await database.schema
    .createTable('agent_conversations')
    .addColumn('id', 'varchar(64)', (column) => column.primaryKey())
    .addColumn('agent_id', 'varchar(64)', (column) => column.notNull())
    .addColumn('owner_key_id', 'varchar(128)', (column) => column.notNull())
    .addColumn('revision', 'integer', (column) => column.notNull())
    .addColumn('messages', 'text', (column) => column.notNull())
    .addColumn('state', 'text', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .execute();
}

export async function down(database: Kysely<unknown>): Promise<void> {
  await database.schema.dropTable('agent_conversations').execute();
}
