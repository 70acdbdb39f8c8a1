import { sql } from 'kysely';
import { tsQuery } from '../search-index/postgres-full-text.ts';
import type { KnowledgeMatcher } from './knowledge-match.ts';

/** ts_rank_cd normalization 1: divides by 1 + log(passage length), so long passages do not win by length. */
const rankNormalization = 1;

/**
 * PostgreSQL full-text search over the passages' generated, GIN-indexed search_vector; the
 * tsquery is assembled from bound plain-text terms as for the search index, so no caller text is
 * read as tsquery syntax.
 */
export const postgresKnowledgeMatch: KnowledgeMatcher = {
  async match(db, terms, mode, fileIds, limit) {
    const result = await sql<{ id: number; file_id: string; position: number; content: string; score: number }>`
      WITH q AS (SELECT ${tsQuery(terms, mode)} AS query)
      SELECT p.id, p.file_id, p.position, p.content, ts_rank_cd(p.search_vector, q.query, ${sql.lit(rankNormalization)}) AS score
      FROM knowledge_passages p, q
      WHERE p.file_id IN (${sql.join(fileIds)}) AND p.search_vector @@ q.query
      ORDER BY score DESC, p.id
      LIMIT ${limit}`.execute(db);
    return result.rows.map((row) => ({ id: Number(row.id), fileId: row.file_id, position: row.position, content: row.content, score: Number(row.score) }));
  },
};
