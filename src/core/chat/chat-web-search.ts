import type { CapabilitySource } from '../models/capability.ts';
import type { SearchQuery, SearchResult } from '../web/web-searcher.ts';
import type { ChatMessage, ChatRequest } from './chat-types.ts';

/** The chat web_search tool's settings (docs/wire.md §1.2), defaults applied. */
export interface ChatSearch {
  /** The search engine (model) name, `search-prime` by default. */
  readonly engine: string;
  /** What to search for; undefined: the conversation's last user message. */
  readonly query?: string | undefined;
  readonly count: number;
  readonly domainFilter?: string | undefined;
  readonly recencyFilter: SearchQuery['recencyFilter'];
  readonly contentSize: SearchQuery['contentSize'];
  /** The instruction the results are put in (`{search_result}` stands for them); undefined: a default one. */
  readonly prompt?: string | undefined;
  /** Whether the answer carries the results (`web_search`) beside the message. */
  readonly showResults: boolean;
}

/**
 * Runs the chat tool's web search (the web_search endpoint's filters) on the query it names, or on
 * the last user message.
 */
export async function searchForChat(backends: CapabilitySource<'search'>, search: ChatSearch, request: ChatRequest): Promise<readonly SearchResult[]> {
  const query = search.query ?? lastUserText(request.messages);
  if (query.trim() === '') return [];
  const found = await backends.capability(search.engine, 'search').search({
    query,
    count: search.count,
    domainFilter: search.domainFilter,
    recencyFilter: search.recencyFilter,
    contentSize: search.contentSize,
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
    .map(
      (result, index) =>
        `[${result.refer || `ref_${index + 1}`}] ${result.title}\n${result.link}${result.publishDate === '' ? '' : ` (${result.publishDate})`}\n${result.content}`,
    )
    .join('\n\n');
  const text =
    searchPrompt !== undefined && /\{\{?search_result\}\}?/.test(searchPrompt)
      ? searchPrompt.replace(/\{\{?search_result\}\}?/g, listed)
      : `Web search results for this conversation, to use where relevant; cite them as [ref_N]:\n\n${listed}`;
  const message: ChatMessage = { role: 'system', content: text };
  return { ...request, messages: [message, ...request.messages] };
}

/** The text of the conversation's last user message ("" when it has none). */
export function lastUserText(messages: readonly ChatMessage[]): string {
  const last = [...messages].reverse().find((message) => message.role === 'user');
  if (last === undefined || last.content === null) return '';
  if (typeof last.content === 'string') return last.content;
  return last.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ');
}
