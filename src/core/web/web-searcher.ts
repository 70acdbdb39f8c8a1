/** A search as the platform asks it (docs/wire.md §1.2, with defaults applied). */
export interface SearchQuery {
  readonly query: string;
  /** 1..50. */
  readonly count: number;
  /** One domain: results only from it (and its subdomains). */
  readonly domainFilter: string | undefined;
  readonly recencyFilter: 'oneDay' | 'oneWeek' | 'oneMonth' | 'oneYear' | 'noLimit';
  /** medium: ~500 characters of content per result; high: ~2,500. */
  readonly contentSize: 'medium' | 'high';
  /** Whether to report the query's intent. */
  readonly intent: boolean;
  readonly signal: AbortSignal;
}

/** One result (docs/wire.md §1.2); every field a string, "" when unknown. */
export interface SearchResult {
  readonly title: string;
  readonly content: string;
  readonly link: string;
  readonly media: string;
  readonly icon: string;
  readonly refer: string;
  readonly publishDate: string;
}

export interface SearchIntent {
  readonly query: string;
  readonly intent: string;
  readonly keywords: string;
}

export interface SearchResponse {
  readonly results: readonly SearchResult[];
  readonly intents: readonly SearchIntent[];
}

/** The web search capability. */
export interface WebSearcher {
  search(query: SearchQuery): Promise<SearchResponse>;
}
