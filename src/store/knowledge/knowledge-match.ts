import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../database-schema.ts';
import type { MatchMode } from '../search-index/full-text-dialect.ts';
import type { QueryTerms } from '../search-index/query-terms.ts';

/** A passage that matched, with its full-text score (higher is better, within one call). */
export interface PassageMatch {
  readonly id: number;
  readonly fileId: string;
  readonly position: number;
  readonly content: string;
  readonly score: number;
}

/** The one part of the knowledge index that differs between SQLite (FTS5) and PostgreSQL (tsvector). */
export interface KnowledgeMatcher {
  /** The best `limit` passages of these files, best first; ties in id order. */
  match(db: Kysely<DatabaseSchema>, terms: QueryTerms, mode: MatchMode, fileIds: readonly string[], limit: number): Promise<PassageMatch[]>;
}
