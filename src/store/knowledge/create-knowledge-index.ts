import type { KnowledgeIndex } from '../../core/knowledge/knowledge-index.ts';
import type { Database } from '../database.ts';
import { KnowledgeIndexStore } from './knowledge-index-store.ts';
import { postgresKnowledgeMatch } from './postgres-knowledge-match.ts';
import { sqliteKnowledgeMatch } from './sqlite-knowledge-match.ts';

/** The knowledge bases in the platform's database: FTS5 on SQLite, tsvector on PostgreSQL. Holds no state of its own. */
export function createKnowledgeIndex(database: Database): KnowledgeIndex {
  return new KnowledgeIndexStore(database, database.dialect === 'postgres' ? postgresKnowledgeMatch : sqliteKnowledgeMatch);
}
