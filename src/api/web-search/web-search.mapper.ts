import type { Static } from '@sinclair/typebox';
import type { SearchQuery, SearchResponse } from '../../core/web/web-searcher.ts';
import { toWireSearchResult } from '../shared/search-result.mapper.ts';
import type { WebSearchRequest, WebSearchResponse } from './web-search.schema.ts';

/** The wire request with the platform's defaults applied (docs/wire.md §1.2). */
export function toSearchQuery(body: WebSearchRequest, signal: AbortSignal): SearchQuery {
  const domain = body.search_domain_filter?.trim();
  return {
    query: body.search_query.trim(),
    count: body.count ?? 10,
    domainFilter: domain === undefined || domain === '' ? undefined : domain,
    recencyFilter: body.search_recency_filter ?? 'noLimit',
    contentSize: body.content_size ?? 'medium',
    intent: body.search_intent ?? false,
    signal,
  };
}

export interface WebSearchHeader {
  readonly id: string;
  readonly created: number;
  readonly requestId: string;
}

/** The wire answer; `search_intent` only when the client asked for it. */
export function toWebSearchResponse(header: WebSearchHeader, response: SearchResponse, intentAsked: boolean): Static<typeof WebSearchResponse> {
  return {
    id: header.id,
    created: header.created,
    request_id: header.requestId,
    ...(intentAsked ? { search_intent: response.intents.map((intent) => ({ query: intent.query, intent: intent.intent, keywords: intent.keywords })) } : {}),
    search_result: response.results.map(toWireSearchResult),
  };
}
