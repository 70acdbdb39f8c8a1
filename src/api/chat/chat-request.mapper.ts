import type { ChatMessage, ChatRequest, ContentPart, FunctionTool } from '../../core/chat/chat-types.ts';
import type { ChatSearch } from '../../core/chat/chat-web-search.ts';
import { ApiError, invalidField } from '../../core/errors/api-error.ts';
import type { ChatRetrieval } from '../../core/knowledge/chat-retrieval.ts';
import { chatModelRules, effectiveThinking } from '../../core/models/chat-model-rules.ts';
import { inlineHead, parseInlineData } from '../../core/media/inline-data.ts';
import type { ContentPart as WireContentPart, ChatMessage as WireChatMessage } from '../shared/message.schema.ts';
import type { ChatCompletionRequest } from './chat.schema.ts';

/** A chat call before it has a signal: what an async chat task stores. */
export type ChatJob = Omit<ChatRequest, 'signal'>;

/**
 * The platform's chat body as an engine-neutral ChatRequest: the platform's documented per-model defaults
 * (temperature, top_p, output cap, thinking and effort rules) applied, earlier reasoning dropped
 * unless `clear_thinking` is false, the stop words as a list, media as URLs.
 */
export function toChatRequest(body: ChatCompletionRequest, signal: AbortSignal): ChatRequest {
  // Built with the signal in place, not as a spread copy of the job: one object per call.
  return chatFields(body, signal);
}

/** toChatRequest without the signal. */
export function toChatJob(body: ChatCompletionRequest): ChatJob {
  return withoutSignal(chatFields(body, undefined));
}

function withoutSignal({ signal: _signal, ...job }: ChatJob & { readonly signal: undefined }): ChatJob {
  return job;
}

/** Neither tools nor stop words: shared, as the request's lists are read-only. */
const noTools: readonly FunctionTool[] = Object.freeze([]);
const noStop: readonly string[] = Object.freeze([]);

function chatFields<Signal extends AbortSignal | undefined>(body: ChatCompletionRequest, signal: Signal): ChatJob & { readonly signal: Signal } {
  const rules = chatModelRules(body.model);
  const keepReasoning = body.thinking?.clear_thinking === false;
  return {
    signal,
    model: body.model,
    messages: toChatMessages(body.messages, keepReasoning),
    tools: body.tools === undefined ? noTools : toFunctionTools(body.tools),
    temperature: body.temperature ?? rules?.temperature,
    topP: body.top_p ?? rules?.topP,
    greedy: body.do_sample === false,
    maxTokens: body.max_tokens,
    maxTokensLimit: rules?.maxOutputTokens,
    stop: body.stop === undefined ? noStop : typeof body.stop === 'string' ? [body.stop] : body.stop,
    responseFormat: body.response_format?.type ?? 'text',
    thinking: effectiveThinking(body.model, body.thinking?.type, body.reasoning_effort),
    seed: body.seed,
  };
}

/** The body's web_search tool, defaults applied; undefined when it has none or it is disabled. */
export function toChatSearch(body: ChatCompletionRequest): ChatSearch | undefined {
  const tool = body.tools?.find((item) => item.type === 'web_search');
  const options = tool?.web_search;
  if (options === undefined || options.enable === false) return undefined;
  return {
    engine: options.search_engine ?? 'search-prime',
    query: options.search_query,
    count: options.count ?? 10,
    domainFilter: options.search_domain_filter,
    recencyFilter: options.search_recency_filter ?? 'noLimit',
    contentSize: options.content_size ?? 'medium',
    prompt: options.search_prompt,
    showResults: options.search_result !== false,
  };
}

/** The body's retrieval tool (one knowledge base per call); undefined when it has none. */
export function toChatRetrieval(body: ChatCompletionRequest): ChatRetrieval | undefined {
  const tools = body.tools;
  if (tools === undefined) return undefined;
  const indexes = tools.flatMap((tool, index) => (tool.type === 'retrieval' ? [index] : []));
  if (indexes.length > 1) throw invalidField(`tools[${indexes[1]}]`, 'a call may have one retrieval tool (one knowledge base)');
  const options = indexes[0] === undefined ? undefined : tools[indexes[0]]?.retrieval;
  if (options === undefined) return undefined;
  return { knowledgeId: options.knowledge_id, ...(options.prompt_template === undefined ? {} : { promptTemplate: options.prompt_template }) };
}

/** Wire messages as engines take them; `keepReasoning` keeps earlier turns' reasoning_content. */
export function toChatMessages(messages: readonly WireChatMessage[], keepReasoning: boolean): ChatMessage[] {
  return messages.map((message) => toMessage(message, keepReasoning));
}

function toMessage(message: WireChatMessage, keepReasoning: boolean): ChatMessage {
  // Optional fields are added one by one rather than spread from conditional objects: every
  // message of every call passes here.
  const mapped: { -readonly [Field in keyof ChatMessage]: ChatMessage[Field] } = {
    role: message.role,
    content: message.content === undefined ? null : typeof message.content === 'string' ? message.content : message.content.map(toContentPart),
  };
  if (keepReasoning && message.reasoning_content !== undefined) mapped.reasoningContent = message.reasoning_content;
  if (message.tool_calls !== undefined) {
    mapped.toolCalls = message.tool_calls.map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments }));
  }
  if (message.tool_call_id !== undefined) mapped.toolCallId = message.tool_call_id;
  if (message.name !== undefined) mapped.name = message.name;
  return mapped;
}

function toContentPart(part: WireContentPart): ContentPart {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text ?? '' };
    case 'input_audio':
      return { type: 'input_audio', url: `data:audio/${part.input_audio?.format ?? 'wav'};base64,${part.input_audio?.data ?? ''}` };
    default:
      return { type: part.type, url: toMediaUrl(part[part.type]?.url ?? '') };
  }
}

/** http(s) and data URLs pass as they are; bare base64 (the Python SDK strips the prefix) becomes a data URL. */
function toMediaUrl(url: string): string {
  if (/^(https?|data):/i.test(url)) return url;
  const inline = parseInlineData(url);
  return inline === undefined ? url : `data:${sniffMediaType(inlineHead(inline))};base64,${inline.base64}`;
}

function sniffMediaType(head: Buffer): string {
  if (head[0] === 0x89 && head.subarray(1, 4).toString('latin1') === 'PNG') return 'image/png';
  if (head[0] === 0xff && head[1] === 0xd8) return 'image/jpeg';
  if (head.subarray(0, 3).toString('latin1') === 'GIF') return 'image/gif';
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  if (head.subarray(4, 8).toString('latin1') === 'ftyp') return 'video/mp4';
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  return 'application/octet-stream';
}

/**
 * Function tools go to the engine; the web search and retrieval tools are run by the platform
 * before the engine is called (core/chat/chat-web-search.ts, core/knowledge/chat-retrieval.ts).
 */
export function toFunctionTools(tools: NonNullable<ChatCompletionRequest['tools']>): FunctionTool[] {
  return tools.flatMap((tool, index) => {
    if (tool.type === 'web_search' || tool.type === 'retrieval') return [];
    if (tool.type !== 'function' || tool.function === undefined) {
      throw new ApiError(
        '1221',
        `tools[${index}]: the '${tool.type}' tool is not available in this build of the server; function, retrieval and web_search tools are.`,
      );
    }
    const { name, description, parameters } = tool.function;
    return [{ name, ...(description === undefined ? {} : { description }), ...(parameters === undefined ? {} : { parameters }) }];
  });
}
