import { sql, type Kysely } from 'kysely';
import type { IndexedDocument, IndexHit, IndexQuery, SearchIndex } from '../../core/web/search-index.ts';
import type { DatabaseSchema } from '../database-schema.ts';
import type { Database } from '../database.ts';
import type { FullTextDialect, FullTextMatch, MatchFilters } from './full-text-dialect.ts';
import { isEmptyQuery, parseQueryTerms, termNeedles, type QueryTerms } from './query-terms.ts';
import { domainKey, fromRow, toRow } from './search-document-row.ts';
import { snippetWindow } from './snippet-window.ts';

/**
 * The local search index over the `search_documents` table. Document rows are written the same
 * way on both dialects (the full-text side follows in the database: FTS5 triggers or a generated
 * tsvector); only matching and ranking differ, in the dialect object.
 */
export class SearchIndexStore implements SearchIndex {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #dialect: FullTextDialect;

  constructor(database: Database, dialect: FullTextDialect) {
    this.#db = database.db;
    this.#dialect = dialect;
  }

  async upsert(document: IndexedDocument): Promise<void> {
    await upsertInto(this.#db, document);
  }

  async upsertMany(documents: readonly IndexedDocument[]): Promise<void> {
    if (documents.length === 0) return;
    await this.#db.transaction().execute(async (transaction) => {
      for (const document of documents) await upsertInto(transaction, document);
    });
  }

  async remove(url: string): Promise<number> {
    const query = this.#db.deleteFrom('search_documents');
    const result = url.endsWith('*')
      ? await query.where(sql<boolean>`substr(url, 1, ${url.length - 1}) = ${url.slice(0, -1)}`).executeTakeFirst()
      : await query.where('url', '=', url).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async has(url: string): Promise<boolean> {
    const row = await this.#db.selectFrom('search_documents').select('id').where('url', '=', url).executeTakeFirst();
    return row !== undefined;
  }

  async count(): Promise<number> {
    const row = await this.#db
      .selectFrom('search_documents')
      .select((builder) => builder.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }

  async query(query: IndexQuery): Promise<IndexHit[]> {
    const terms = parseQueryTerms(query.text);
    if (isEmptyQuery(terms) || query.limit < 1) return [];
    const filters: MatchFilters = {
      domain: query.domain === undefined || query.domain.trim() === '' ? undefined : domainKey(query.domain),
      publishedAfter: query.publishedAfter,
    };
    const matches = await this.#dialect.match(this.#db, terms, 'all', filters, query.limit);
    if (matches.length < query.limit && termCount(terms) > 1) {
      // Too few pages have every term: fill with pages that have some, ranked after the full matches.
      const seen = new Set(matches.map((match) => match.row.id));
      const partial = await this.#dialect.match(this.#db, terms, 'any', filters, query.limit + matches.length);
      for (const match of partial) {
        if (matches.length >= query.limit) break;
        if (!seen.has(match.row.id)) matches.push(match);
      }
    }
    const needles = termNeedles(terms);
    return matches.map((match: FullTextMatch) => ({
      document: fromRow(match.row),
      snippet: snippetWindow(match.row.content, match.fragment, needles, query.snippetLength),
      score: match.score,
    }));
  }

  searchTerms(text: string): string[] {
    return [...parseQueryTerms(text).described];
  }
}

async function upsertInto(db: Kysely<DatabaseSchema>, document: IndexedDocument): Promise<void> {
  const row = toRow(document);
  await db
    .insertInto('search_documents')
    .values(row)
    .onConflict((conflict) =>
      conflict.column('url').doUpdateSet({
        host: row.host,
        title: row.title,
        content: row.content,
        segmented_title: row.segmented_title,
        segmented_content: row.segmented_content,
        description: row.description,
        site_name: row.site_name,
        icon: row.icon,
        published_at: row.published_at,
        indexed_at: row.indexed_at,
      }),
    )
    .execute();
}

function termCount(terms: QueryTerms): number {
  return terms.words.length + terms.phrases.length;
}
