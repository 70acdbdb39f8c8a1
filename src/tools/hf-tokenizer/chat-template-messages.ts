import type { ChatMessage, FunctionTool } from '../../core/chat/chat-types.ts';

/** Messages in the shape HF chat templates expect (OpenAI-style, content as text). */
export function toTemplateMessages(messages: readonly ChatMessage[]): Record<string, unknown>[] {
  return messages.map((message) => ({
    role: message.role,
    content:
      message.content === null
        ? ''
        : typeof message.content === 'string'
          ? message.content
          : message.content.map((part) => (part.type === 'text' ? part.text : '')).join(''),
    ...(message.reasoningContent === undefined ? {} : { reasoning_content: message.reasoningContent }),
    ...(message.toolCalls === undefined
      ? {}
      : {
          tool_calls: message.toolCalls.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: call.arguments },
          })),
        }),
    ...(message.toolCallId === undefined ? {} : { tool_call_id: message.toolCallId }),
    ...(message.name === undefined ? {} : { name: message.name }),
  }));
}

/** Tools in the OpenAI shape HF chat templates render. */
export function toTemplateTools(tools: readonly FunctionTool[]): Record<string, unknown>[] {
  return tools.map((tool) => ({ type: 'function', function: tool }));
}
