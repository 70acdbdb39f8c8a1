import { Type, type Static } from '@sinclair/typebox';
import { ChatCompletionRequest } from '../chat/chat.schema.ts';

const answerByPolling = 'the answer is read from GET /async-result/{id}; POST /chat/completions streams';

/**
 * POST /paas/v4/async/chat/completions: the chat body without streaming (docs/wire.md §4).
 * `stream` and `tool_stream` are accepted only as false, so a client that asks for a stream hears
 * why it gets none instead of an answer it did not expect.
 */
export const AsyncChatCompletionRequest = Type.Composite([
  Type.Omit(ChatCompletionRequest, ['stream', 'tool_stream']),
  Type.Object({
    stream: Type.Optional(Type.Boolean({ description: `Only false: ${answerByPolling}.` })),
    tool_stream: Type.Optional(Type.Boolean({ description: `Only false: ${answerByPolling}.` })),
  }),
]);

export type AsyncChatCompletionRequest = Static<typeof AsyncChatCompletionRequest>;

/** Why `stream` or `tool_stream` set to true is refused. */
export const noStreamReason = `must be false or absent on async chat: ${answerByPolling}`;
