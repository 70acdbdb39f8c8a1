import { Type, type Static } from '@sinclair/typebox';
import { ModelName, RequestId, SearchResultItem, StringEnum, UserId } from '../shared/common.schema.ts';

const searchRecencyFilters = ['oneDay', 'oneWeek', 'oneMonth', 'oneYear', 'noLimit'] as const;

/** POST /paas/v4/web_search (field names: docs/wire.md §1.2). */
export const WebSearchRequest = Type.Object({
  search_engine: ModelName(
    'search-prime (z.ai); search_std, search_pro, search_pro_sogou, search_pro_quark (bigmodel); or a search engine of the config catalog.',
  ),
  search_query: Type.String({ minLength: 1, description: 'Content to search; about 70 characters at most is recommended.' }),
  count: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'Number of results, 1-50; search_pro_sogou takes 10, 20, 30, 40 or 50.' }),
  ),
  search_domain_filter: Type.Optional(Type.String({ description: 'Only results from this domain, for example www.example.com.' })),
  search_recency_filter: Type.Optional(StringEnum(searchRecencyFilters, { default: 'noLimit', description: 'Restricts results by page age.' })),
  content_size: Type.Optional(StringEnum(['medium', 'high'], { description: 'medium: a summary of about 400-600 characters; high: about 2500 characters.' })),
  search_intent: Type.Optional(Type.Boolean({ default: false, description: 'Recognise the search intent first.' })),
  // Sent by the Python SDK; accepted and ignored.
  sensitive_word_check: Type.Optional(
    Type.Object({ type: Type.Optional(Type.String()), status: Type.Optional(Type.String()) }, { description: 'Accepted for SDK compatibility; ignored.' }),
  ),
  include_image: Type.Optional(Type.Boolean({ description: 'Accepted for SDK compatibility; ignored.' })),
  request_id: Type.Optional(RequestId),
  user_id: Type.Optional(UserId),
});

export type WebSearchRequest = Static<typeof WebSearchRequest>;

const SearchIntent = Type.Object({
  query: Type.String({ description: 'The query as understood.' }),
  intent: Type.String({ description: 'The recognised intent, for example SEARCH_ALL or SEARCH_NONE.' }),
  keywords: Type.String(),
});

export const WebSearchResponse = Type.Object({
  id: Type.String(),
  created: Type.Integer({ description: 'Unix timestamp, seconds.' }),
  request_id: Type.String(),
  search_intent: Type.Optional(Type.Array(SearchIntent)),
  search_result: Type.Array(SearchResultItem),
});
