import type { SearchResult, WebSearcher } from '../web/web-searcher.ts';
import type { GuardedFetcher } from '../../tools/fetch/guarded-fetcher.ts';
import { searchForChat, withSearchResults, type ChatSearch } from './chat-web-search.ts';
import type { ChatRequest } from './chat-types.ts';
import { hasRemoteMedia, inlineRemoteMedia } from './inline-remote-media.ts';

/** What the platform itself does for a chat call before the engine sees it. */
export interface ChatPreparation {
  readonly backends: { search(engine: string): WebSearcher };
  /** Fetches media given by URL (createChatMediaFetcher). */
  readonly mediaFetcher: GuardedFetcher;
}

export interface PreparedChat {
  readonly request: ChatRequest;
  /** The web_search tool's results; undefined when the call has no such tool. */
  readonly searchResults: readonly SearchResult[] | undefined;
}

/**
 * The request as the engine gets it, the same for sync, streamed and async calls: media given by
 * URL fetched here through the SSRF guard (an engine must never fetch a URL a client chose), then
 * the web_search tool's search run and its results put into the prompt.
 */
export async function prepareChat(deps: ChatPreparation, request: ChatRequest, search: ChatSearch | undefined): Promise<PreparedChat> {
  let prepared = hasRemoteMedia(request) ? await inlineRemoteMedia(request, deps.mediaFetcher) : request;
  if (search === undefined) return { request: prepared, searchResults: undefined };
  const results = await searchForChat(deps.backends, search, prepared);
  prepared = withSearchResults(prepared, results, search.prompt);
  return { request: prepared, searchResults: results };
}
