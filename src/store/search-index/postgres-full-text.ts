import { sql, type RawBuilder } from 'kysely';
import { filterSql, type FullTextDialect, type FullTextMatch, type MatchMode } from './full-text-dialect.ts';
import type { QueryTerms } from './query-terms.ts';
import type { SearchDocumentRow } from './search-document-row.ts';

/** ts_rank_cd normalization 1: divides by 1 + log(document length), so long pages do not win by length. */
const rankNormalization = 1;
const headlineOptions = 'StartSel="", StopSel="", MaxWords=35, MinWords=15, ShortWord=2, MaxFragments=1';

/**
 * PostgreSQL full-text search: each term is a bound parameter of plainto_tsquery (a word) or
 * phraseto_tsquery (a phrase), functions that read their input as plain text, and the tsquery is
 * assembled from them with && (all) or || (any) in SQL, so no user text is parsed as tsquery
 * syntax. Ranked by ts_rank_cd over the generated, GIN-indexed search_vector (title weighted A,
 * content B); ts_headline picks the fragment, for the ranked few only.
 */
export const postgresFullText: FullTextDialect = {
  async match(db, terms, mode, filters, limit) {
    const result = await sql<SearchDocumentRow & { score: number; fragment: string | null }>`
      WITH q AS (SELECT ${tsQuery(terms, mode)} AS query),
      top AS (
        SELECT d.id, d.url, d.host, d.title, d.content, d.description, d.site_name, d.icon, d.published_at, d.indexed_at,
          ts_rank_cd(d.search_vector, q.query, ${sql.lit(rankNormalization)}) AS score
        FROM search_documents d, q
        WHERE d.search_vector @@ q.query${filterSql(filters)}
        ORDER BY score DESC, d.id
        LIMIT ${limit}
      )
      SELECT top.*, ts_headline('english', coalesce(d.segmented_content, d.content), q.query, ${headlineOptions}) AS fragment
      FROM top JOIN search_documents d ON d.id = top.id, q
      ORDER BY top.score DESC, top.id`.execute(db);
    return result.rows.map(({ score, fragment, ...row }): FullTextMatch => ({
      row: { ...row, id: Number(row.id) },
      score: Number(score),
      fragment: fragment ?? '',
    }));
  },
};

export function tsQuery(terms: QueryTerms, mode: MatchMode): RawBuilder<unknown> {
  const parts = [
    ...terms.words.map((word) => sql`plainto_tsquery('english', ${word})`),
    ...terms.phrases.map((phrase) => sql`phraseto_tsquery('english', ${phrase.join(' ')})`),
  ];
  return sql`(${sql.join(parts, mode === 'all' ? sql` && ` : sql` || `)})`;
}
