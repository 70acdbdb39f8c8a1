import type { CapabilitySource } from '../models/capability.ts';
import type { SearchResult } from '../web/web-searcher.ts';
import { searchForChat, withSearchResults, type ChatSearch } from './chat-web-search.ts';
import type { ChatRequest } from './chat-types.ts';
import { hasRemoteMedia, inlineRemoteMedia, type MediaFetcher } from './inline-remote-media.ts';
import { withRetrievedKnowledge, type ChatRetrieval } from '../knowledge/chat-retrieval.ts';
import type { KnowledgeIndex } from '../knowledge/knowledge-index.ts';

/** What the platform itself does for a chat call before the engine sees it. */
export interface ChatPreparation {
  readonly backends: CapabilitySource<'search'>;
  /** Fetches media given by URL, through the SSRF guard. */
  readonly mediaFetcher: MediaFetcher;
  /** The knowledge bases the retrieval tool searches. */
  readonly knowledge: KnowledgeIndex;
}

/** The retrieval tool of a call, and the key whose knowledge base it may read. */
export interface ChatKnowledgeRetrieval extends ChatRetrieval {
  readonly ownerKeyId: string;
}

export interface PreparedChat {
  readonly request: ChatRequest;
  /** The web_search tool's results; undefined when the call has no such tool. */
  readonly searchResults: readonly SearchResult[] | undefined;
}

/**
 * The request as the engine gets it, the same for sync, streamed and async calls: media given by
 * URL fetched here through the SSRF guard (an engine must never fetch a URL a client chose), the
 * retrieval tool's passages put into the last user turn, then the web_search tool's search run
 * and its results put into the prompt.
 */
export async function prepareChat(
  deps: ChatPreparation,
  request: ChatRequest,
  search: ChatSearch | undefined,
  retrieval?: ChatKnowledgeRetrieval,
): Promise<PreparedChat> {
  const inlined = hasRemoteMedia(request) ? await inlineRemoteMedia(request, deps.mediaFetcher) : request;
  const prepared = retrieval === undefined ? inlined : (await withRetrievedKnowledge(deps.knowledge, retrieval.ownerKeyId, retrieval, inlined)).request;
  if (search === undefined) return { request: prepared, searchResults: undefined };
  // The search asks the user's own last turn, not the retrieval template that replaced it.
  const results = await searchForChat(deps.backends, search, inlined);
  return { request: withSearchResults(prepared, results, search.prompt), searchResults: results };
}
