import type { ChatResult, ToolCall } from '../../core/chat/chat-types.ts';
import { splitThinkTags } from '../../core/chat/think-tag-splitter.ts';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import { argumentsText, asArray, asRecord, asString, finishReasonOf, newToolCallId, pathOf, readUsage, reasoningOf } from './wire-reading.ts';

/**
 * A non-streamed chat completion as a ChatResult: reasoning from the reasoning field or from a
 * `<think>` block left in the content, tool call arguments always a JSON string.
 */
export function readChatCompletion(answer: unknown, model: string): ChatResult {
  const choice = asRecord(asArray(asRecord(answer)?.['choices'])[0]);
  if (choice === undefined) {
    throw new EngineFailure('bad-answer', model, `The engine for model '${model}' sent an answer without choices.`);
  }
  const message = asRecord(choice['message']);
  const text = asString(message?.['content']) ?? '';
  // Without an opening tag anywhere the content is all answer: most answers skip the splitter.
  const split = text.includes('<think>') ? splitThinkTags(text) : { content: text, reasoning: '' };
  const toolCalls = asArray(message?.['tool_calls']).flatMap((value): ToolCall[] => {
    const call = asRecord(value);
    const name = asString(pathOf(call, 'function', 'name'));
    if (name === undefined) return [];
    return [{ id: asString(call?.['id']) || newToolCallId(), name, arguments: argumentsText(pathOf(call, 'function', 'arguments')) || '{}' }];
  });
  return {
    content: split.content,
    reasoningContent: reasoningOf(message) + split.reasoning,
    toolCalls,
    finishReason: finishReasonOf(asString(choice['finish_reason']), toolCalls.length > 0),
    usage: readUsage(asRecord(answer)?.['usage']),
  };
}
