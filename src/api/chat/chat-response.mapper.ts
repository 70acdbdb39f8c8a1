import type { ChatResult, ChatUsage, FinishReason, ToolCall } from '../../core/chat/chat-types.ts';
import { flaggedWithoutLevel } from '../../core/errors/content-filter.ts';
import type { WireSearchResult } from '../shared/search-result.mapper.ts';

/** What every chunk and response of one call shares. */
export interface ChatAnswerHeader {
  readonly id: string;
  readonly requestId: string;
  readonly created: number;
  readonly model: string;
  /** Results of the chat web_search tool, returned with the answer (sync) or on the last chunk. */
  readonly webSearch?: WireSearchResult[];
}

function toWireUsage(usage: ChatUsage) {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedTokens },
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

function toWireToolCall(call: ToolCall) {
  return { id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } };
}

/** The non-streamed chat completion body (docs/wire.md §3.2, §3.3); content is null when a function was hit. */
export function toChatCompletion(header: ChatAnswerHeader, result: ChatResult) {
  const hitFunction = result.toolCalls.length > 0;
  return {
    id: header.id,
    request_id: header.requestId,
    created: header.created,
    model: header.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant' as const,
          content: hitFunction && result.content === '' ? null : result.content,
          ...(result.reasoningContent === '' ? {} : { reasoning_content: result.reasoningContent }),
          ...(hitFunction ? { tool_calls: result.toolCalls.map(toWireToolCall) } : {}),
        },
        finish_reason: result.finishReason,
      },
    ],
    usage: toWireUsage(result.usage),
    ...(header.webSearch === undefined ? {} : { web_search: header.webSearch }),
    ...contentFilterOf(result.finishReason),
  };
}

/**
 * An answer that ended `sensitive` says what was flagged (docs/wire.md §3.2): the answer itself.
 * Engines report only that they stopped, so the verdict has no severity of their own.
 */
function contentFilterOf(reason: FinishReason) {
  return reason === 'sensitive' ? { content_filter: [...flaggedWithoutLevel('assistant')] } : {};
}

/** A delta of a streamed answer (docs/wire.md §3.2): every delta says role assistant. */
export interface WireDelta {
  readonly content?: string;
  readonly reasoning_content?: string;
  readonly tool_calls?: readonly WireToolCallDelta[];
}

export interface WireToolCallDelta {
  readonly index: number;
  readonly id?: string;
  readonly type?: 'function';
  readonly function: { readonly name?: string; readonly arguments: string };
}

export function toChunk(header: ChatAnswerHeader, delta: WireDelta) {
  return {
    id: header.id,
    created: header.created,
    model: header.model,
    choices: [{ index: 0, delta: { role: 'assistant' as const, ...delta }, finish_reason: null }],
  };
}

/** The last chunk: finish_reason, role assistant with empty content, usage (docs/wire.md §3.2), and content_filter when sensitive. */
export function toFinalChunk(header: ChatAnswerHeader, reason: FinishReason, usage: ChatUsage) {
  return {
    id: header.id,
    created: header.created,
    model: header.model,
    choices: [{ index: 0, delta: { role: 'assistant' as const, content: '' }, finish_reason: reason }],
    usage: toWireUsage(usage),
    ...(header.webSearch === undefined ? {} : { web_search: header.webSearch }),
    ...contentFilterOf(reason),
  };
}
