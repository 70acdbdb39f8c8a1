import type { SearchIndex } from '../../core/web/search-index.ts';
import type { SearchIntent, SearchQuery, SearchResponse, WebSearcher } from '../../core/web/web-searcher.ts';
import { contentLengths, iconOf, mediaOf, publishDateOf, referOf } from '../engine-http/search-result-fields.ts';

const dayMs = 24 * 60 * 60 * 1000;

/** How far back each recency filter reaches from now. */
const recencyWindowMs: Record<SearchQuery['recencyFilter'], number | undefined> = {
  oneDay: dayMs,
  oneWeek: 7 * dayMs,
  oneMonth: 30 * dayMs,
  oneYear: 365 * dayMs,
  noLimit: undefined,
};

/**
 * Web search over the platform's own full-text index (pages added with `model-platform index
 * add`). A recency filter keeps only pages with a stated publish date inside the window: an
 * undated page cannot be shown to be recent. The intent report is not a model's reading of the
 * query: it says the whole query was searched (SEARCH_ALL) and lists the terms the index matched
 * on.
 */
export class LocalIndexSearcher implements WebSearcher {
  readonly #index: SearchIndex;
  readonly #now: () => number;

  constructor(index: SearchIndex, now: () => number = Date.now) {
    this.#index = index;
    this.#now = now;
  }

  async search(query: SearchQuery): Promise<SearchResponse> {
    query.signal.throwIfAborted();
    const window = recencyWindowMs[query.recencyFilter];
    const hits = await this.#index.query({
      text: query.query,
      limit: query.count,
      domain: query.domainFilter,
      publishedAfter: window === undefined ? undefined : this.#now() - window,
      snippetLength: contentLengths[query.contentSize],
    });
    const results = hits.map((hit, rank) => ({
      title: hit.document.title,
      content: hit.snippet,
      link: hit.document.url,
      media: mediaOf(hit.document.siteName, hit.document.url),
      icon: iconOf(hit.document.icon, hit.document.url),
      refer: referOf(rank),
      publishDate: publishDateOf(hit.document.publishedAt),
    }));
    const intents: SearchIntent[] = query.intent
      ? [{ query: query.query, intent: 'SEARCH_ALL', keywords: this.#index.searchTerms(query.query).join(' ') }]
      : [];
    return { results, intents };
  }
}
