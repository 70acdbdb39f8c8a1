import type { SearchIndex } from '../../core/web/search-index.ts';
import type { Database } from '../database.ts';
import { postgresFullText } from './postgres-full-text.ts';
import { SearchIndexStore } from './search-index-store.ts';
import { sqliteFullText } from './sqlite-full-text.ts';

/** The local full-text index in the platform's database: FTS5 on SQLite, tsvector on PostgreSQL. */
export function createSearchIndex(database: Database): SearchIndex {
  return new SearchIndexStore(database, database.dialect === 'postgres' ? postgresFullText : sqliteFullText);
}
