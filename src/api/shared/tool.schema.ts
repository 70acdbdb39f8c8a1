import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './common.schema.ts';

const FunctionDefinition = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-zA-Z0-9_-]+$' }),
  description: Type.Optional(Type.String()),
  parameters: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'JSON Schema of the parameters; omit when there are none.' })),
});

/** Function tool only (tokenizer). */
export const FunctionTool = Type.Object({
  type: Type.Literal('function'),
  function: FunctionDefinition,
});

/** The chat tool's web search settings (docs/wire.md §1.2). */
const WebSearchToolOptions = Type.Object({
  enable: Type.Optional(Type.Boolean()),
  search_engine: Type.Optional(Type.String()),
  search_query: Type.Optional(Type.String()),
  search_result: Type.Optional(Type.Boolean()),
  require_search: Type.Optional(Type.Boolean()),
  search_prompt: Type.Optional(Type.String()),
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
  search_domain_filter: Type.Optional(Type.String()),
  search_recency_filter: Type.Optional(StringEnum(['oneDay', 'oneWeek', 'oneMonth', 'oneYear', 'noLimit'])),
  content_size: Type.Optional(StringEnum(['medium', 'high'])),
  result_sequence: Type.Optional(StringEnum(['before', 'after'])),
});

/** A chat tool: function, retrieval or web search; `checkTools` ties `type` to its settings object. */
export const ChatTool = Type.Object({
  type: StringEnum(['function', 'retrieval', 'web_search']),
  function: Type.Optional(FunctionDefinition),
  retrieval: Type.Optional(Type.Object({ knowledge_id: Type.String({ minLength: 1 }), prompt_template: Type.Optional(Type.String()) })),
  web_search: Type.Optional(WebSearchToolOptions),
});

export const maxTools = 128;

export type ChatTool = Static<typeof ChatTool>;
