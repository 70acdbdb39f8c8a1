import type { ChatMessage, ChatRequest } from '../../core/chat/chat-types.ts';
import type { EngineRegistry } from '../../core/engines/engine-registry.ts';
import type { SearchResult } from '../../core/web/web-searcher.ts';
import type { ChatCompletionRequest } from './chat.schema.ts';

type WebSearchOptions = NonNullable<NonNullable<ChatCompletionRequest['tools']>[number]['web_search']>;

/** The chat request's web search tool, when it has one that is enabled. */
export function webSearchTool(body: ChatCompletionRequest): WebSearchOptions | undefined {
  const tool = body.tools?.find((item) => item.type === 'web_search');
  return tool?.web_search?.enable === false ? undefined : tool?.web_search;
}

/**
 * Runs the chat tool's web search (platform-facts §1.2: the web_search endpoint's filters) on the
 * query it names, or on the last user message.
 */
export async function searchForChat(engines: EngineRegistry, options: WebSearchOptions, request: ChatRequest): Promise<readonly SearchResult[]> {
  const query = options.search_query ?? lastUserText(request.messages);
  if (query.trim() === '') return [];
  const found = await engines.search(options.search_engine ?? 'search-prime').search({
    query,
    count: options.count ?? 10,
    domainFilter: options.search_domain_filter,
    recencyFilter: options.search_recency_filter ?? 'noLimit',
    contentSize: options.content_size ?? 'medium',
    intent: false,
    signal: request.signal,
  });
  return found.results;
}

/**
 * The request with the results put into the prompt: a system message ahead of the conversation,
 * built from the tool's `search_prompt` (where `{search_result}` or `{{search_result}}` stands for
 * the results) or from a default instruction.
 */
export function withSearchResults(request: ChatRequest, results: readonly SearchResult[], searchPrompt: string | undefined): ChatRequest {
  if (results.length === 0) return request;
  const listed = results
    .map((result, index) => `[${result.refer || `ref_${index + 1}`}] ${result.title}\n${result.link}${result.publishDate === '' ? '' : ` (${result.publishDate})`}\n${result.content}`)
    .join('\n\n');
  const text =
    searchPrompt !== undefined && /\{\{?search_result\}\}?/.test(searchPrompt)
      ? searchPrompt.replace(/\{\{?search_result\}\}?/g, listed)
      : `Web search results for this conversation, to use where relevant; cite them as [ref_N]:\n\n${listed}`;
  const message: ChatMessage = { role: 'system', content: text };
  return { ...request, messages: [message, ...request.messages] };
}

function lastUserText(messages: readonly ChatMessage[]): string {
  const last = [...messages].reverse().find((message) => message.role === 'user');
  if (last === undefined || last.content === null) return '';
  if (typeof last.content === 'string') return last.content;
  return last.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ');
}
