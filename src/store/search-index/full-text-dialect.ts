import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DatabaseSchema } from '../database-schema.ts';
import type { QueryTerms } from './query-terms.ts';
import type { SearchDocumentRow } from './search-document-row.ts';

/** Which documents a match must come from. */
export interface MatchFilters {
  /** A `domainKey`: the host itself or any subdomain. */
  readonly domain: string | undefined;
  readonly publishedAfter: number | undefined;
}

/** `all`: every term must occur; `any`: at least one. */
export type MatchMode = 'all' | 'any';

export interface FullTextMatch {
  readonly row: SearchDocumentRow;
  /** Higher is better, comparable within one call only. */
  readonly score: number;
  /** The engine's pick of the best short passage of the content ("" when it has none). */
  readonly fragment: string;
}

/** The one part of the index that differs between SQLite (FTS5) and PostgreSQL (tsvector). */
export interface FullTextDialect {
  /** The best `limit` matches, best first; ties in id order. */
  match(db: Kysely<DatabaseSchema>, terms: QueryTerms, mode: MatchMode, filters: MatchFilters, limit: number): Promise<FullTextMatch[]>;
}

/** ` AND …` conditions on the filter columns (`d.host`, `d.published_at`); the same SQL on both dialects. */
export function filterSql(filters: MatchFilters): RawBuilder<unknown> {
  const conditions: RawBuilder<unknown>[] = [];
  if (filters.domain !== undefined) {
    conditions.push(sql`(d.host = ${filters.domain} OR d.host LIKE ${subdomainPattern(filters.domain)} ESCAPE '\\')`);
  }
  if (filters.publishedAfter !== undefined) conditions.push(sql`d.published_at >= ${filters.publishedAfter}`);
  return conditions.length === 0 ? sql`` : sql` AND ${sql.join(conditions, sql` AND `)}`;
}

/** `LIKE` pattern for "ends with .domain", with LIKE's own characters escaped (ESCAPE '\'). */
function subdomainPattern(domain: string): string {
  return `%.${domain.replace(/[\\%_]/g, (character) => `\\${character}`)}`;
}
