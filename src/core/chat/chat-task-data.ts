import { Type, type Static, type TLiteral, type TUnion } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { StoredTaskData } from '../tasks/stored-task-data.ts';

/**
 * What a `chat` task keeps in the task store, as schemas: the route writes the call (a ChatRequest
 * without its signal, the web_search tool's settings beside it), the handler the answer; every
 * reader goes through these (a row that does not match fails its own task, with the reason).
 */

/** One of these strings exactly (TypeBox types a union built from a list only as `string`). */
function literals<const Values extends readonly string[]>(values: Values): TUnion<TLiteral<Values[number]>[]> {
  return Type.Union(values.map((value) => Type.Literal(value)));
}

const StoredToolCall = Type.Object({ id: Type.String(), name: Type.String(), arguments: Type.String() });

const StoredContentPart = Type.Union([
  Type.Object({ type: Type.Literal('text'), text: Type.String() }),
  Type.Object({ type: literals(['image_url', 'video_url', 'file_url', 'input_audio']), url: Type.String() }),
]);

const StoredChatMessage = Type.Object({
  role: literals(['system', 'user', 'assistant', 'tool']),
  content: Type.Union([Type.String(), Type.Array(StoredContentPart), Type.Null()]),
  reasoningContent: Type.Optional(Type.String()),
  toolCalls: Type.Optional(Type.Array(StoredToolCall)),
  toolCallId: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
});

const StoredChatSearch = Type.Object({
  engine: Type.String(),
  query: Type.Optional(Type.String()),
  count: Type.Integer(),
  domainFilter: Type.Optional(Type.String()),
  recencyFilter: literals(['oneDay', 'oneWeek', 'oneMonth', 'oneYear', 'noLimit']),
  contentSize: literals(['medium', 'high']),
  prompt: Type.Optional(Type.String()),
  showResults: Type.Boolean(),
});

const StoredChatRetrieval = Type.Object({
  knowledgeId: Type.String(),
  promptTemplate: Type.Optional(Type.String()),
});

/** The call: ChatRequest's fields (absent where undefined), and the web_search and retrieval tools' settings when it has them. */
const ChatJobSchema = Type.Object({
  model: Type.String(),
  messages: Type.Array(StoredChatMessage, { minItems: 1 }),
  tools: Type.Array(
    Type.Object({
      name: Type.String(),
      description: Type.Optional(Type.String()),
      parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }),
  ),
  temperature: Type.Optional(Type.Number()),
  topP: Type.Optional(Type.Number()),
  greedy: Type.Boolean(),
  maxTokens: Type.Optional(Type.Integer()),
  maxTokensLimit: Type.Optional(Type.Integer()),
  stop: Type.Array(Type.String()),
  responseFormat: literals(['text', 'json_object']),
  thinking: Type.Object({
    enabled: Type.Boolean(),
    effort: Type.Optional(literals(['max', 'xhigh', 'high', 'medium', 'low', 'minimal', 'none'])),
  }),
  seed: Type.Optional(Type.Integer()),
  search: Type.Optional(StoredChatSearch),
  retrieval: Type.Optional(StoredChatRetrieval),
});
export type StoredChatJob = Static<typeof ChatJobSchema>;

const StoredSearchResult = Type.Object({
  title: Type.String(),
  content: Type.String(),
  link: Type.String(),
  media: Type.String(),
  icon: Type.String(),
  refer: Type.String(),
  publishDate: Type.String(),
});

/** The answer (a ChatResult), when it was made (Unix s), and what the web_search tool did for it. */
export const StoredChatResult = Type.Object({
  content: Type.String(),
  reasoningContent: Type.String(),
  toolCalls: Type.Array(StoredToolCall),
  finishReason: literals(['stop', 'tool_calls', 'length', 'sensitive', 'model_context_window_exceeded', 'network_error']),
  usage: Type.Object({ promptTokens: Type.Integer(), completionTokens: Type.Integer(), cachedTokens: Type.Integer() }),
  created: Type.Integer(),
  /** Searches run for the answer (0 or 1): the usage ledger counts them. */
  searches: Type.Integer(),
  /** The results the answer shows (`web_search`), when the tool asked for them. */
  webSearch: Type.Optional(Type.Array(StoredSearchResult)),
});
export type StoredChatResult = Static<typeof StoredChatResult>;

export const chatTaskRequest = new StoredTaskData('request', ChatJobSchema);
export const chatTaskResult = new StoredTaskData('result', StoredChatResult);

const resultCheck = TypeCompiler.Compile(StoredChatResult);

/** Whether a handler's return value is a chat task's result (the usage ledger reads it before it is stored). */
export function isStoredChatResult(value: unknown): value is StoredChatResult {
  return resultCheck.Check(value);
}
