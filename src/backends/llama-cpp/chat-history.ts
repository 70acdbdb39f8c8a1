import type { ChatHistoryItem, ChatModelFunctionCall, ChatModelFunctions, ChatModelResponse } from 'node-llama-cpp';
import { textContent } from '../../core/chat/text-only.ts';
import type { ChatMessage, FunctionTool } from '../../core/chat/chat-types.ts';
import { nullPrototypeRecord } from '../../core/objects/null-prototype-record.ts';

/**
 * The conversation in node-llama-cpp's shape, ending with an empty model turn (the generation
 * prompt). node-llama-cpp keeps a tool call's result inside the model turn that made the call and
 * lets the model go on in that same turn, so `assistant(tool_calls) → tool… → assistant` becomes
 * one model item: the chat wrapper renders it back as the template's separate turns.
 */
export function toChatHistory(messages: readonly ChatMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  /** Calls still waiting for their result, by tool call id. */
  const pendingCalls = new Map<string, ChatModelFunctionCall>();
  for (const message of messages) {
    const text = textContent(message.content) ?? '';
    switch (message.role) {
      case 'system':
        history.push({ type: 'system', text });
        break;
      case 'user':
        history.push({ type: 'user', text });
        break;
      case 'assistant': {
        const turn = continuedModelTurn(history);
        if (text !== '') turn.response.push(text);
        (message.toolCalls ?? []).forEach((toolCall, index) => {
          const call: ChatModelFunctionCall = {
            type: 'functionCall',
            name: toolCall.name,
            params: parseLeniently(toolCall.arguments),
            result: undefined,
            // Each assistant message is one round of (possibly parallel) calls.
            startsNewChunk: index === 0,
          };
          turn.response.push(call);
          pendingCalls.set(toolCall.id, call);
        });
        break;
      }
      case 'tool': {
        const call = takePendingCall(pendingCalls, message.toolCallId);
        // A result with no call to belong to still reaches the model, as the user's words.
        if (call === undefined) history.push({ type: 'user', text });
        else call.result = parseLeniently(text);
        break;
      }
    }
  }
  history.push({ type: 'model', response: [] });
  return history;
}

/** The tools in node-llama-cpp's shape: the chat wrapper renders them into the prompt. */
export function toChatFunctions(tools: readonly FunctionTool[]): ChatModelFunctions | undefined {
  if (tools.length === 0) return undefined;
  // Tool names are the caller's (`__proto__` fits their pattern): keys of a null-prototype record.
  const functions = nullPrototypeRecord<ChatModelFunctions[string]>();
  for (const tool of tools) {
    // Rendering only serializes the schema, so any JSON Schema passes, not just the grammar subset.
    functions[tool.name] = {
      ...(tool.description === undefined ? {} : { description: tool.description }),
      params: (tool.parameters ?? null) as ChatModelFunctions[string]['params'],
    };
  }
  return functions;
}

/** The model turn an assistant message adds to: the previous one when the model is still talking after tool results. */
function continuedModelTurn(history: ChatHistoryItem[]): ChatModelResponse {
  const last = history.at(-1);
  if (last?.type === 'model' && last.response.at(-1) !== undefined && typeof last.response.at(-1) !== 'string') return last;
  const turn: ChatModelResponse = { type: 'model', response: [] };
  history.push(turn);
  return turn;
}

function takePendingCall(pendingCalls: Map<string, ChatModelFunctionCall>, toolCallId: string | undefined): ChatModelFunctionCall | undefined {
  const id = toolCallId !== undefined && pendingCalls.has(toolCallId) ? toolCallId : pendingCalls.keys().next().value;
  if (id === undefined) return undefined;
  const call = pendingCalls.get(id);
  pendingCalls.delete(id);
  return call;
}

/** Tool arguments and results are usually JSON; the wrapper prints them as JSON, so text stays a JSON string. */
function parseLeniently(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
