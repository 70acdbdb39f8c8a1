import { sql } from 'kysely';
import { matchExpression } from '../search-index/sqlite-full-text.ts';
import type { KnowledgeMatcher, PassageMatch } from './knowledge-match.ts';

/**
 * FTS5 over the passages (the MATCH expression built as for the search index: quoted terms only),
 * ranked by bm25(); the file filter reads the narrow `knowledge_passage_files` table, and only
 * the ranked few passages' text is read. CROSS JOIN keeps the full-text match as the outer loop:
 * driven from the file side instead, FTS5 would run the MATCH once per passage.
 */
export const sqliteKnowledgeMatch: KnowledgeMatcher = {
  async match(db, terms, mode, fileIds, limit) {
    const ranked = await sql<{ id: number; rank: number }>`
      SELECT f.rowid AS id, bm25(knowledge_passages_fts) AS rank
      FROM knowledge_passages_fts f CROSS JOIN knowledge_passage_files pf ON pf.id = f.rowid
      WHERE knowledge_passages_fts MATCH ${matchExpression(terms, mode)} AND pf.file_id IN (${sql.join(fileIds)})
      ORDER BY rank, f.rowid
      LIMIT ${limit}`.execute(db);
    if (ranked.rows.length === 0) return [];
    const ids = ranked.rows.map((row) => Number(row.id));
    const rows = await db.selectFrom('knowledge_passages').select(['id', 'file_id', 'position', 'content']).where('id', 'in', ids).execute();
    const byId = new Map(rows.map((row) => [Number(row.id), row]));
    const matches: PassageMatch[] = [];
    for (const { id, rank } of ranked.rows) {
      const row = byId.get(Number(id));
      if (row !== undefined) matches.push({ id: Number(id), fileId: row.file_id, position: row.position, content: row.content, score: -rank });
    }
    return matches;
  },
};
