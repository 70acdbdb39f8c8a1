import { sql, type Kysely } from 'kysely';
import type { DatabaseSchema } from '../database-schema.ts';
import { filterSql, type FullTextDialect, type FullTextMatch, type MatchMode } from './full-text-dialect.ts';
import type { QueryTerms } from './query-terms.ts';
import { documentColumns } from './search-document-row.ts';

/** bm25 column weights: a word in the title counts as much as five in the text. */
const titleWeight = 5;
/** Tokens of the fragment snippet() picks (FTS5 allows at most 64). */
const fragmentTokens = 40;

/**
 * SQLite FTS5: the MATCH expression is made only of double-quoted strings (a quoted string is
 * always a term or phrase to FTS5, never an operator or column filter), joined by spaces (AND) or
 * OR. Ranking is bm25() with the title weighted (smaller is better, so negated; called directly,
 * it is twice as fast as the table's configurable `rank` column); snippet() picks the fragment.
 */
export const sqliteFullText: FullTextDialect = {
  async match(db, terms, mode, filters, limit) {
    const expression = matchExpression(terms, mode);
    const filtered = filters.domain !== undefined || filters.publishedAfter !== undefined;
    // Ranking reads only ids and scores: rows carried through the sort would copy every match's text.
    const ranked = await sql<{ id: number; rank: number }>`
      SELECT search_documents_fts.rowid AS id, bm25(search_documents_fts, ${sql.lit(titleWeight)}, 1.0) AS rank
      FROM search_documents_fts${filtered ? sql` JOIN search_document_filters d ON d.id = search_documents_fts.rowid` : sql``}
      WHERE search_documents_fts MATCH ${expression}${filterSql(filters)}
      ORDER BY rank
      LIMIT ${limit}`.execute(db);
    if (ranked.rows.length === 0) return [];
    const ids = ranked.rows.map((row) => Number(row.id));
    const rows = await db.selectFrom('search_documents').select(documentColumns).where('id', 'in', ids).execute();
    const byId = new Map(rows.map((row) => [Number(row.id), row]));
    const fragments = await fragmentsOf(db, expression, ids);
    const matches: FullTextMatch[] = [];
    for (const { id, rank } of ranked.rows) {
      const row = byId.get(Number(id));
      if (row !== undefined) matches.push({ row, score: -rank, fragment: fragments.get(Number(id)) ?? '' });
    }
    return matches;
  },
};

/** snippet() only for the ranked few: computing it while ranking would cost it for every match. */
async function fragmentsOf(db: Kysely<DatabaseSchema>, expression: string, ids: readonly number[]): Promise<Map<number, string>> {
  const result = await sql<{ id: number; fragment: string | null }>`
    SELECT rowid AS id, snippet(search_documents_fts, 1, '', '', '', ${sql.lit(fragmentTokens)}) AS fragment
    FROM search_documents_fts
    WHERE search_documents_fts MATCH ${expression} AND rowid IN (${sql.join(ids)})`.execute(db);
  return new Map(result.rows.map((row) => [Number(row.id), row.fragment ?? '']));
}

export function matchExpression(terms: QueryTerms, mode: MatchMode): string {
  const parts = [...terms.words.map((word) => quote(word)), ...terms.phrases.map((phrase) => quote(phrase.join(' ')))];
  return parts.join(mode === 'all' ? ' ' : ' OR ');
}

function quote(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}
