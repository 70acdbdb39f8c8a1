import { Type, type Static } from '@sinclair/typebox';
import { ChatUsage, ContentFilterVerdicts, ModelName, RequestId, SearchResultItem, StringEnum, UserId } from '../shared/common.schema.ts';
import { ChatMessage, ToolCall } from '../shared/message.schema.ts';
import { ChatTool, maxTools } from '../shared/tool.schema.ts';

const reasoningEfforts = ['max', 'xhigh', 'high', 'medium', 'low', 'minimal', 'none'] as const;

const finishReasons = ['stop', 'tool_calls', 'length', 'sensitive', 'model_context_window_exceeded', 'network_error'] as const;

/** POST /paas/v4/chat/completions (fields the documentation leaves out: docs/wire.md §1.7, §1.9). */
export const ChatCompletionRequest = Type.Object({
  model: ModelName(
    'glm-5.3, glm-5.2, glm-5.1, glm-5, glm-4.7, glm-4.7-flash, glm-4.7-flashx, glm-4.6, glm-4.5, glm-4.5-air, glm-4.5-x, glm-4.5-airx, glm-4.5-flash, glm-4-32b-0414-128k; vision: glm-4.6v, glm-4.5v; glm-edge-1.5b-chat (served with no configuration); or a model of the config catalog.',
  ),
  messages: Type.Array(ChatMessage, { minItems: 1 }),
  do_sample: Type.Optional(Type.Boolean({ description: 'Default true; false makes decoding greedy.' })),
  stream: Type.Optional(Type.Boolean()),
  thinking: Type.Optional(
    Type.Object({
      type: Type.Optional(StringEnum(['enabled', 'disabled'])),
      clear_thinking: Type.Optional(Type.Boolean()),
    }),
  ),
  reasoning_effort: Type.Optional(StringEnum(reasoningEfforts)),
  temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  top_p: Type.Optional(Type.Number({ minimum: 0.01, maximum: 1 })),
  max_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 131072 })),
  tool_stream: Type.Optional(Type.Boolean()),
  tools: Type.Optional(Type.Array(ChatTool, { maxItems: maxTools })),
  tool_choice: Type.Optional(Type.Literal('auto')),
  stop: Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String(), { minItems: 1, maxItems: 4 })], {
      description: 'Stop words: one as a string, or an array of 1-4 (the platform guarantees only the first; engines here take all).',
    }),
  ),
  response_format: Type.Optional(Type.Object({ type: StringEnum(['text', 'json_object']) })),
  seed: Type.Optional(Type.Integer({ description: 'Sampling seed, for repeatable answers where the engine supports it.' })),
  request_id: Type.Optional(RequestId),
  user_id: Type.Optional(UserId),
});

export type ChatCompletionRequest = Static<typeof ChatCompletionRequest>;

const AssistantMessage = Type.Object({
  role: Type.Literal('assistant'),
  content: Type.Union([Type.String(), Type.Null()]),
  reasoning_content: Type.Optional(Type.String()),
  tool_calls: Type.Optional(Type.Array(ToolCall)),
});

export const ChatCompletionResponse = Type.Object({
  id: Type.String(),
  request_id: Type.String(),
  created: Type.Integer(),
  model: Type.String(),
  choices: Type.Array(
    Type.Object({
      index: Type.Integer(),
      message: AssistantMessage,
      finish_reason: StringEnum(finishReasons),
    }),
  ),
  usage: ChatUsage,
  web_search: Type.Optional(Type.Array(SearchResultItem)),
  content_filter: Type.Optional(sensitiveVerdicts()),
});

/** One `data:` event of a chat stream (docs/wire.md §3.2, §3.3). */
export const ChatCompletionChunk = Type.Object({
  id: Type.String(),
  created: Type.Integer(),
  model: Type.String(),
  choices: Type.Array(
    Type.Object({
      index: Type.Integer(),
      delta: Type.Object({
        role: Type.Optional(Type.Literal('assistant')),
        content: Type.Optional(Type.String()),
        reasoning_content: Type.Optional(Type.String()),
        tool_calls: Type.Optional(
          Type.Array(
            Type.Object({
              index: Type.Integer(),
              id: Type.Optional(Type.String()),
              type: Type.Optional(Type.Literal('function')),
              function: Type.Object({ name: Type.Optional(Type.String()), arguments: Type.String() }),
            }),
          ),
        ),
      }),
      finish_reason: Type.Union([StringEnum(finishReasons), Type.Null()]),
    }),
  ),
  usage: Type.Optional(ChatUsage),
  web_search: Type.Optional(Type.Array(SearchResultItem)),
  content_filter: Type.Optional(sensitiveVerdicts()),
});

/** `content_filter` of an answer that ended `sensitive` (docs/wire.md §3.2): on the sync answer and the last chunk. */
function sensitiveVerdicts() {
  return ContentFilterVerdicts('Only when finish_reason is sensitive: what was flagged; level 1 where the engine gave no severity.');
}
