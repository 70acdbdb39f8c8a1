import type { SearchQuery, SearchResponse, WebSearcher } from '../../core/web/web-searcher.ts';
import { contentLengths } from '../engine-http/search-result-fields.ts';
import { getSearchJson, type SearxngConnection } from './searxng-request.ts';
import { readSearxngHits, toSearchResult, type SearxngHit } from './searxng-results.ts';

const timeRanges: Record<SearchQuery['recencyFilter'], string | undefined> = {
  oneDay: 'day',
  oneWeek: 'week',
  oneMonth: 'month',
  oneYear: 'year',
  noLimit: undefined,
};

/** SearXNG pages hold 10-20 results; more pages than this are not worth the wait. */
const mostPages = 5;

/**
 * Web search through a SearXNG instance's JSON API. The domain filter goes into the query as
 * `site:` (the engines SearXNG asks understand it) and is enforced again on the answer, since not
 * every engine honours it; the recency filter is SearXNG's time_range. Content is the snippet the
 * engines give (often shorter than content_size asks: SearXNG does not fetch pages). No intent
 * report is made: SearXNG does not analyse queries, so `search_intent` comes back empty.
 */
export class SearxngSearcher implements WebSearcher {
  readonly #connection: SearxngConnection;

  constructor(connection: SearxngConnection) {
    this.#connection = connection;
  }

  async search(query: SearchQuery): Promise<SearchResponse> {
    const domain = query.domainFilter?.toLowerCase().replace(/^www\./, '');
    const parameters = new URLSearchParams({ q: domain === undefined ? query.query : `${query.query} site:${domain}`, format: 'json' });
    const timeRange = timeRanges[query.recencyFilter];
    if (timeRange !== undefined) parameters.set('time_range', timeRange);
    const kept: SearxngHit[] = [];
    const seen = new Set<string>();
    for (let page = 1; page <= mostPages && kept.length < query.count; page += 1) {
      parameters.set('pageno', String(page));
      const hits = readSearxngHits(await getSearchJson(this.#connection, parameters, query.signal), this.#connection.modelName);
      const fresh = hits.filter((hit) => !seen.has(hit.url));
      if (fresh.length === 0) break;
      for (const hit of fresh) {
        seen.add(hit.url);
        if (domain === undefined || hit.host === domain || hit.host.endsWith(`.${domain}`)) kept.push(hit);
      }
    }
    const length = contentLengths[query.contentSize];
    return { results: kept.slice(0, query.count).map((hit, rank) => toSearchResult(hit, rank, length)), intents: [] };
  }
}
