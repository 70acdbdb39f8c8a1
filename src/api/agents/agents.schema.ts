import { Type, type Static } from '@sinclair/typebox';
import { RequestId, StringEnum, UserId } from '../shared/common.schema.ts';
import { AgentVariables, agentVariableRules } from './agent-variables.schema.ts';

const agentIds = ['general_translation', 'slides_glm_agent', 'vidu_template_agent'] as const;

const agentFinishReasons = ['stop', 'tool_calls', 'length', 'sensitive', 'network_error'] as const;

const agentStatuses = ['pending', 'success', 'failed'] as const;

const AgentId = StringEnum(agentIds, { description: 'general_translation, slides_glm_agent or vidu_template_agent.' });

/** An image, file or video reference: a URL string, or `{url}` as in chat messages. */
const AgentMedia = Type.Union([Type.String({ minLength: 1 }), Type.Object({ url: Type.String({ minLength: 1 }) })]);

const AgentContentPart = Type.Object({
  type: StringEnum(['text', 'image_url', 'file_url', 'video_url']),
  text: Type.Optional(Type.String()),
  image_url: Type.Optional(AgentMedia),
  file_url: Type.Optional(AgentMedia),
  video_url: Type.Optional(AgentMedia),
});

/** A message to an agent; translation takes user messages only (checkAgentChatRequest). */
export const AgentMessage = Type.Object({
  role: StringEnum(['user', 'assistant']),
  content: Type.Union([Type.String({ minLength: 1 }), Type.Array(AgentContentPart, { minItems: 1 })], {
    description: 'Text, or a list of parts; a part carries the field its type names.',
  }),
});

export type AgentMessage = Static<typeof AgentMessage>;

/** POST /v1/agents (field placement: docs/wire.md §1.6). */
export const AgentChatRequest = Type.Object(
  {
    agent_id: AgentId,
    messages: Type.Array(AgentMessage, { minItems: 1 }),
    stream: Type.Optional(Type.Boolean({ description: 'Default false; true answers with an event stream of AgentChatChunk.' })),
    conversation_id: Type.Optional(Type.String({ minLength: 1, description: 'Continues a conversation (slides_glm_agent).' })),
    custom_variables: Type.Optional(AgentVariables),
    request_id: Type.Optional(RequestId),
    user_id: Type.Optional(UserId),
  },
  { allOf: agentVariableRules },
);

export type AgentChatRequest = Static<typeof AgentChatRequest>;

const AgentError = Type.Object({
  code: Type.String(),
  message: Type.String(),
});

const AgentUsage = Type.Object({
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
  total_calls: Type.Integer(),
});

export const AgentChatResult = Type.Object({
  id: Type.String({ description: 'Task id.' }),
  agent_id: Type.String(),
  conversation_id: Type.Optional(Type.String()),
  async_id: Type.Optional(Type.String({ description: 'Set when the result is fetched later from /v1/agents/async-result.' })),
  status: Type.Optional(StringEnum(agentStatuses)),
  choices: Type.Array(
    Type.Object({
      index: Type.Integer(),
      finish_reason: StringEnum(agentFinishReasons),
      messages: Type.Array(
        Type.Object({
          role: Type.String(),
          content: Type.Object({ type: Type.String(), text: Type.String() }),
        }),
      ),
    }),
  ),
  usage: Type.Optional(AgentUsage),
  error: Type.Optional(AgentError),
});

/** One `data:` event of an agent stream (docs/wire.md §3.5): agent_id on every frame, errors in-band. */
export const AgentChatChunk = Type.Object({
  id: Type.String(),
  agent_id: Type.String(),
  conversation_id: Type.Optional(Type.String()),
  async_id: Type.Optional(Type.String({ description: 'On the last frame of an agent whose result is fetched later.' })),
  status: Type.Optional(StringEnum(agentStatuses)),
  choices: Type.Array(
    Type.Object({
      index: Type.Integer(),
      delta: Type.Object({
        role: Type.Optional(Type.Literal('assistant')),
        content: Type.Optional(Type.String()),
      }),
      finish_reason: Type.Optional(Type.Union([StringEnum(agentFinishReasons), Type.Null()])),
    }),
  ),
  usage: Type.Optional(AgentUsage),
  error: Type.Optional(AgentError),
});

/** POST /v1/agents/conversation: slides history only. */
export const AgentConversationRequest = Type.Object({
  agent_id: Type.Literal('slides_glm_agent', { description: 'Only slides_glm_agent keeps a conversation history.' }),
  conversation_id: Type.String({ minLength: 1 }),
  custom_variables: Type.Optional(
    Type.Object({
      include_pdf: Type.Optional(Type.Boolean({ description: 'Also export the slides as a PDF.' })),
      pages: Type.Optional(
        Type.Array(
          Type.Object({
            position: Type.Integer({ minimum: 1, description: 'Slide position, from 1.' }),
            width: Type.Number({ exclusiveMinimum: 0, description: 'Slide width in pt.' }),
            height: Type.Number({ exclusiveMinimum: 0, description: 'Slide height in pt.' }),
          }),
        ),
      ),
    }),
  ),
  request_id: Type.Optional(RequestId),
});

export const AgentConversationResult = Type.Object({
  conversation_id: Type.String(),
  agent_id: Type.String(),
  choices: Type.Array(
    Type.Object({
      message: Type.Array(
        Type.Object({
          role: Type.Literal('assistant'),
          content: Type.Array(
            Type.Object({
              type: StringEnum(['file_url', 'image_url']),
              tag_cn: Type.String(),
              tag_en: Type.String(),
              file_url: Type.Optional(Type.String()),
              image_url: Type.Optional(Type.String()),
            }),
          ),
        }),
      ),
    }),
  ),
  error: Type.Optional(AgentError),
});

/** POST /v1/agents/async-result; the Java SDK names the id `task_id` (docs/wire.md §1.6). */
export const AgentAsyncResultRequest = Type.Object({
  agent_id: AgentId,
  async_id: Type.Optional(Type.String({ minLength: 1, description: 'The async_id of the agent result; required unless task_id is sent.' })),
  task_id: Type.Optional(Type.String({ minLength: 1, description: 'Same as async_id (Java SDK).' })),
  conversation_id: Type.Optional(Type.String()),
  custom_variables: Type.Optional(Type.Object({}, { additionalProperties: true })),
  request_id: Type.Optional(RequestId),
});

export type AgentAsyncResultRequest = Static<typeof AgentAsyncResultRequest>;

export const AgentAsyncResult = Type.Object({
  status: StringEnum(agentStatuses),
  agent_id: Type.String(),
  async_id: Type.String(),
  choices: Type.Optional(
    Type.Array(
      Type.Object({
        index: Type.Integer(),
        finish_reason: StringEnum(agentFinishReasons),
        message: Type.Array(
          Type.Object({
            role: Type.String(),
            content: Type.Array(
              Type.Object({
                type: Type.String(),
                video_url: Type.String(),
                cover_image_url: Type.Optional(Type.String({ description: 'A still of the video, when the engine made one.' })),
              }),
            ),
          }),
        ),
      }),
    ),
  ),
  error: Type.Optional(AgentError),
});
