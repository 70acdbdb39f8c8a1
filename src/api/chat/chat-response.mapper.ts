import type { ChatResult, ChatUsage, FinishReason, ToolCall } from '../../core/chat/chat-types.ts';
import { flaggedWithoutLevel, type ContentFilterVerdict } from '../../core/errors/content-filter.ts';
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
  // Optional fields are set one by one rather than spread from conditional objects: this runs for
  // every sync answer. The key order is the wire's either way.
  const message: WireMessage = { role: 'assistant', content: hitFunction && result.content === '' ? null : result.content };
  if (result.reasoningContent !== '') message.reasoning_content = result.reasoningContent;
  if (hitFunction) message.tool_calls = result.toolCalls.map(toWireToolCall);
  const completion: WireCompletion = {
    id: header.id,
    request_id: header.requestId,
    created: header.created,
    model: header.model,
    choices: [{ index: 0, message, finish_reason: result.finishReason }],
    usage: toWireUsage(result.usage),
  };
  if (header.webSearch !== undefined) completion.web_search = header.webSearch;
  const contentFilter = contentFilterOf(result.finishReason);
  if (contentFilter !== undefined) completion.content_filter = contentFilter;
  return completion;
}

interface WireMessage {
  role: 'assistant';
  content: string | null;
  reasoning_content?: string;
  tool_calls?: ReturnType<typeof toWireToolCall>[];
}

interface WireCompletion {
  id: string;
  request_id: string;
  created: number;
  model: string;
  choices: { index: number; message: WireMessage; finish_reason: FinishReason }[];
  usage: ReturnType<typeof toWireUsage>;
  web_search?: WireSearchResult[];
  content_filter?: ContentFilterVerdict[];
}

/**
 * An answer that ended `sensitive` says what was flagged (docs/wire.md §3.2): the answer itself.
 * Engines report only that they stopped, so the verdict has no severity of their own.
 */
function contentFilterOf(reason: FinishReason): ContentFilterVerdict[] | undefined {
  return reason === 'sensitive' ? [...flaggedWithoutLevel('assistant')] : undefined;
}

/** A delta of a streamed answer (docs/wire.md §3.2): every delta says role assistant, first. */
export interface WireDelta {
  readonly role: 'assistant';
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
    choices: [{ index: 0, delta, finish_reason: null }],
  };
}

/** The last chunk: finish_reason, role assistant with empty content, usage (docs/wire.md §3.2), and content_filter when sensitive. */
export function toFinalChunk(header: ChatAnswerHeader, reason: FinishReason, usage: ChatUsage) {
  const contentFilter = contentFilterOf(reason);
  return {
    id: header.id,
    created: header.created,
    model: header.model,
    choices: [{ index: 0, delta: { role: 'assistant' as const, content: '' }, finish_reason: reason }],
    usage: toWireUsage(usage),
    ...(header.webSearch === undefined ? {} : { web_search: header.webSearch }),
    ...(contentFilter === undefined ? {} : { content_filter: contentFilter }),
  };
}
