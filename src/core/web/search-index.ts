/** A document in the local full-text index. */
export interface IndexedDocument {
  /** Canonical URL (the key). */
  readonly url: string;
  readonly title: string;
  /** Main text, as the reader extracted it. */
  readonly content: string;
  readonly description: string;
  /** Site name for `media` ("" when unknown). */
  readonly siteName: string;
  /** Icon URL ("" when unknown). */
  readonly icon: string;
  /** Unix ms, when the page states it. */
  readonly publishedAt: number | undefined;
  /** Unix ms of indexing. */
  readonly indexedAt: number;
}

export interface IndexQuery {
  readonly text: string;
  readonly limit: number;
  /** Only documents of this host (or its subdomains); a leading `www.` is ignored on both sides. */
  readonly domain: string | undefined;
  /** Only documents published at or after this Unix ms (documents without a date are left out). */
  readonly publishedAfter: number | undefined;
  /** Characters of matching text around the hits. */
  readonly snippetLength: number;
}

export interface IndexHit {
  readonly document: IndexedDocument;
  /** Matching text around the query terms, about `snippetLength` characters. */
  readonly snippet: string;
  /** Higher is better. */
  readonly score: number;
}

/** The local full-text index (SQLite FTS5 / PostgreSQL full-text search). */
export interface SearchIndex {
  upsert(document: IndexedDocument): Promise<void>;
  /** Stores many documents in one transaction (bulk loads: all or none). */
  upsertMany(documents: readonly IndexedDocument[]): Promise<void>;
  /** Removes the document with this URL, or every document under a URL prefix ending in `*`; returns how many. */
  remove(url: string): Promise<number>;
  has(url: string): Promise<boolean>;
  count(): Promise<number>;
  /** Best matches first: documents with every term, then (to fill `limit`) documents with some. */
  query(query: IndexQuery): Promise<IndexHit[]>;
  /** The terms `query` searches for in `text`: words and quoted phrases, common English words left out. */
  searchTerms(text: string): string[];
}
