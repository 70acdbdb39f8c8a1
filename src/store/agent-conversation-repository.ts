import type { Selectable } from 'kysely';
import type { Database } from './database.ts';
import type { AgentConversationTable } from './database-schema.ts';

/** One row of `agent_conversations` with its JSON columns parsed. */
export interface AgentConversationRecord {
  readonly id: string;
  readonly agentId: string;
  readonly ownerKeyId: string;
  readonly revision: number;
  readonly messages: unknown;
  readonly state: unknown;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** The `agent_conversations` table: every read and write is scoped to the owning key. */
export class AgentConversationRepository {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  async find(agentId: string, ownerKeyId: string, id: string): Promise<AgentConversationRecord | undefined> {
    const row = await this.#database.db
      .selectFrom('agent_conversations')
      .selectAll()
      .where('id', '=', id)
      .where('agent_id', '=', agentId)
      .where('owner_key_id', '=', ownerKeyId)
      .executeTakeFirst();
    return row === undefined ? undefined : toRecord(row);
  }

  async create(conversation: AgentConversationRecord): Promise<void> {
    await this.#database.db
      .insertInto('agent_conversations')
      .values({
        id: conversation.id,
        agent_id: conversation.agentId,
        owner_key_id: conversation.ownerKeyId,
        revision: 1,
        messages: JSON.stringify(conversation.messages ?? null),
        state: JSON.stringify(conversation.state ?? null),
        created_at: conversation.createdAt,
        updated_at: conversation.updatedAt,
      })
      .execute();
  }

  /** One conditional UPDATE, so of two turns that started from the same revision only the first saves. */
  async update(
    conversation: { readonly id: string; readonly ownerKeyId: string; readonly messages: unknown; readonly state: unknown; readonly updatedAt: number },
    expectedRevision: number,
  ): Promise<boolean> {
    const result = await this.#database.db
      .updateTable('agent_conversations')
      .set({
        revision: expectedRevision + 1,
        messages: JSON.stringify(conversation.messages ?? null),
        state: JSON.stringify(conversation.state ?? null),
        updated_at: conversation.updatedAt,
      })
      .where('id', '=', conversation.id)
      .where('owner_key_id', '=', conversation.ownerKeyId)
      .where('revision', '=', expectedRevision)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}

function toRecord(row: Selectable<AgentConversationTable>): AgentConversationRecord {
  return {
    id: row.id,
    agentId: row.agent_id,
    ownerKeyId: row.owner_key_id,
    revision: Number(row.revision),
    messages: JSON.parse(row.messages) as unknown,
    state: JSON.parse(row.state) as unknown,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}
