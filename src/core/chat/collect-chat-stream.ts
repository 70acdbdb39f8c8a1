import type { ChatStreamPart } from './chat-stream-part.ts';
import type { ChatResult, ChatUsage, FinishReason, ToolCall } from './chat-types.ts';

/**
 * A whole answer from the parts of a streamed one: for engines asked to stream although the client
 * waits for the whole answer (an engine that notices a departed client only while it streams).
 * Tool calls are assembled by index in the order they started; a call without arguments gets `{}`,
 * as a non-streamed answer gives it.
 */
export async function collectChatStream(parts: AsyncIterable<ChatStreamPart>): Promise<ChatResult> {
  let content = '';
  let reasoningContent = '';
  const toolCalls: { id: string; name: string; arguments: string }[] = [];
  let finish: { reason: FinishReason; usage: ChatUsage } | undefined;
  for await (const part of parts) {
    switch (part.type) {
      case 'text':
        content += part.text;
        break;
      case 'reasoning':
        reasoningContent += part.text;
        break;
      case 'tool-call-start':
        toolCalls[part.index] = { id: part.id, name: part.name, arguments: '' };
        break;
      case 'tool-call-delta': {
        const call = toolCalls[part.index];
        if (call !== undefined) call.arguments += part.argumentsDelta;
        break;
      }
      case 'finish':
        finish = { reason: part.reason, usage: part.usage };
        break;
    }
  }
  if (finish === undefined) throw new Error('the stream ended without its finish part');
  const calls: ToolCall[] = toolCalls.filter((call) => call !== undefined).map((call) => ({ ...call, arguments: call.arguments || '{}' }));
  return { content, reasoningContent, toolCalls: calls, finishReason: finish.reason, usage: finish.usage };
}
