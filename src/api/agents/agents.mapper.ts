import type { Static } from '@sinclair/typebox';
import type { AgentInput, AgentMessage, AgentPart, AgentUsage, AsyncAgentResult, ConversationItem, ConversationQuery } from '../../agents/agent.ts';
import type {
  AgentAsyncResult,
  AgentChatChunk,
  AgentChatRequest,
  AgentChatResult,
  AgentConversationRequest,
  AgentConversationResult,
  AgentMessage as WireMessage,
} from './agents.schema.ts';

type WireUsage = Static<typeof AgentChatResult>['usage'];
type Finish = 'stop' | 'length' | 'network_error';

/** What every answer of one agent call repeats. */
export interface AgentAnswerHeader {
  readonly id: string;
  readonly agentId: string;
}

/** The finished run, as the agent's `done` event reports it. */
export interface AgentOutcome {
  readonly finishReason: Finish;
  readonly usage: AgentUsage;
  readonly conversationId?: string;
  readonly asyncId?: string;
  readonly status?: 'pending' | 'success' | 'failed';
}

export function toAgentInput(body: AgentChatRequest, context: { ownerKeyId: string; requestId: string; signal: AbortSignal }): AgentInput {
  return {
    messages: body.messages.map(toAgentMessage),
    variables: body.custom_variables ?? {},
    ...(body.conversation_id === undefined ? {} : { conversationId: body.conversation_id }),
    ...context,
  };
}

function toAgentMessage(message: WireMessage): AgentMessage {
  if (typeof message.content === 'string') return { role: message.role, content: message.content };
  return {
    role: message.role,
    content: message.content.map((part): AgentPart => {
      if (part.type === 'text') return { type: 'text', text: part.text ?? '' };
      const media = part[part.type];
      return { type: part.type, url: typeof media === 'string' ? media : (media?.url ?? '') };
    }),
  };
}

function toWireUsage(usage: AgentUsage): NonNullable<WireUsage> {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    total_calls: usage.calls,
  };
}

/** The fields of the `done` event that identify a conversation or a later result. */
function outcomeIds(outcome: AgentOutcome) {
  return {
    ...(outcome.conversationId === undefined ? {} : { conversation_id: outcome.conversationId }),
    ...(outcome.asyncId === undefined ? {} : { async_id: outcome.asyncId }),
    ...(outcome.status === undefined ? {} : { status: outcome.status }),
  };
}

/** The synchronous answer: the whole text as one assistant message (Java needs `messages` to be an array). */
export function toAgentChatResult(header: AgentAnswerHeader, text: string, outcome: AgentOutcome): Static<typeof AgentChatResult> {
  return {
    id: header.id,
    agent_id: header.agentId,
    ...outcomeIds(outcome),
    choices: [{ index: 0, finish_reason: outcome.finishReason, messages: [{ role: 'assistant', content: { type: 'text', text } }] }],
    usage: toWireUsage(outcome.usage),
  };
}

export function toAgentDeltaChunk(header: AgentAnswerHeader, text: string): Static<typeof AgentChatChunk> {
  return { id: header.id, agent_id: header.agentId, choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }] };
}

/** The last frame: finish_reason and usage, with an empty delta as in chat streams. */
export function toAgentFinalChunk(header: AgentAnswerHeader, outcome: AgentOutcome): Static<typeof AgentChatChunk> {
  return {
    id: header.id,
    agent_id: header.agentId,
    ...outcomeIds(outcome),
    choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: outcome.finishReason }],
    usage: toWireUsage(outcome.usage),
  };
}

/** An error after the stream began: in band, with agent_id so the Python SDK yields it (docs/wire.md §3.5). */
export function toAgentErrorChunk(header: AgentAnswerHeader, error: { code: string; message: string }): Static<typeof AgentChatChunk> {
  return { id: header.id, agent_id: header.agentId, choices: [], error };
}

export function toConversationQuery(body: Static<typeof AgentConversationRequest>, ownerKeyId: string): ConversationQuery {
  return {
    ownerKeyId,
    conversationId: body.conversation_id,
    includePdf: body.custom_variables?.include_pdf ?? false,
    pages: body.custom_variables?.pages ?? [],
  };
}

export function toConversationResult(
  body: Static<typeof AgentConversationRequest>,
  items: readonly ConversationItem[],
): Static<typeof AgentConversationResult> {
  return {
    conversation_id: body.conversation_id,
    agent_id: body.agent_id,
    choices: [
      {
        message: [
          {
            role: 'assistant',
            content: items.map((item) => ({
              type: item.type,
              tag_cn: item.tagCn,
              tag_en: item.tagEn,
              ...(item.type === 'file_url' ? { file_url: item.url } : { image_url: item.url }),
            })),
          },
        ],
      },
    ],
  };
}

export function toAsyncResult(agentId: string, asyncId: string, result: AsyncAgentResult): Static<typeof AgentAsyncResult> {
  switch (result.status) {
    case 'pending':
      return { status: 'pending', agent_id: agentId, async_id: asyncId };
    case 'failed':
      return { status: 'failed', agent_id: agentId, async_id: asyncId, error: result.error };
    case 'success':
      return {
        status: 'success',
        agent_id: agentId,
        async_id: asyncId,
        choices: [
          {
            index: 0,
            finish_reason: 'stop',
            message: [
              {
                role: 'assistant',
                content: [{ type: 'video_url', video_url: result.videoUrl, ...(result.coverUrl === undefined ? {} : { cover_image_url: result.coverUrl }) }],
              },
            ],
          },
        ],
      };
  }
}
