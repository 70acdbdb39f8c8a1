import { EngineFailure } from '../../core/errors/engine-failure.ts';
import type { SearchIntent, SearchQuery, SearchResponse, SearchResult, WebSearcher } from '../../core/web/web-searcher.ts';
import { postJson, type EngineConnection } from '../engine-http/engine-request.ts';
import { asArray, asRecord, asString, type WireRecord } from '../engine-http/wire-reading.ts';

/**
 * Web search on the upstream platform's own `POST /web_search`: the request goes out in the
 * platform's own field names (the upstream applies its own defaults and rules), with the
 * operator's apiKey; results and intents come back as they are, read leniently (the upstream
 * has sent both an array and a single object for `search_intent`).
 */
export class ZaiSearch implements WebSearcher {
  readonly #engine: EngineConnection;
  readonly #url: string;
  readonly #upstreamEngine: string;

  constructor(engine: EngineConnection, baseUrl: string, upstreamEngine: string) {
    this.#engine = engine;
    this.#url = `${baseUrl}/web_search`;
    this.#upstreamEngine = upstreamEngine;
  }

  async search(query: SearchQuery): Promise<SearchResponse> {
    const body: Record<string, unknown> = {
      search_engine: this.#upstreamEngine,
      search_query: query.query,
      count: query.count,
      search_recency_filter: query.recencyFilter,
      content_size: query.contentSize,
      search_intent: query.intent,
    };
    if (query.domainFilter !== undefined) body['search_domain_filter'] = query.domainFilter;
    const answer = asRecord(await postJson(this.#engine, { url: this.#url, body, signal: query.signal }));
    if (answer === undefined || !Array.isArray(answer['search_result'])) {
      throw new EngineFailure(
        'bad-answer',
        this.#engine.modelName,
        `The upstream platform answered /web_search for '${this.#engine.modelName}' without a search_result array.`,
      );
    }
    return {
      results: asArray(answer['search_result']).map((item) => readResult(asRecord(item) ?? {})),
      intents: listOf(answer['search_intent']).map((item) => readIntent(asRecord(item) ?? {})),
    };
  }
}

function readResult(item: WireRecord): SearchResult {
  return {
    title: text(item['title']),
    content: text(item['content']),
    link: text(item['link']),
    media: text(item['media']),
    icon: text(item['icon']),
    refer: text(item['refer']),
    publishDate: text(item['publish_date']),
  };
}

function readIntent(item: WireRecord): SearchIntent {
  const keywords = item['keywords'];
  return {
    query: text(item['query']),
    intent: text(item['intent']),
    keywords: Array.isArray(keywords) ? keywords.filter((word) => typeof word === 'string').join(' ') : text(keywords),
  };
}

function listOf(value: unknown): readonly unknown[] {
  if (Array.isArray(value)) return value;
  return asRecord(value) === undefined ? [] : [value];
}

function text(value: unknown): string {
  return asString(value) ?? (typeof value === 'number' ? String(value) : '');
}
