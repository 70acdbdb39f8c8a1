/**
 * A stored agent conversation. `messages` and `state` are JSON the agent wrote and reads back;
 * `revision` counts saved turns, so a turn saves only over the revision it started from.
 */
export interface StoredConversation {
  readonly id: string;
  readonly agentId: string;
  readonly ownerKeyId: string;
  readonly revision: number;
  readonly messages: unknown;
  readonly state: unknown;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** Where agents keep conversations (table `agent_conversations`; src/store implements it). */
export interface AgentConversationStore {
  /** The conversation when `ownerKeyId` owns it under `agentId`; undefined otherwise. */
  find(agentId: string, ownerKeyId: string, id: string): Promise<StoredConversation | undefined>;
  /** Saves a new conversation (revision 1). */
  create(conversation: StoredConversation): Promise<void>;
  /** Saves a later turn when the stored revision is still `expectedRevision`; false when another turn saved first. */
  update(
    conversation: { readonly id: string; readonly ownerKeyId: string; readonly messages: unknown; readonly state: unknown; readonly updatedAt: number },
    expectedRevision: number,
  ): Promise<boolean>;
}
