import type { Kysely } from 'kysely';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { KnowledgeBaseSummary, KnowledgeFileEntry, KnowledgeFileSummary, KnowledgeHit, KnowledgeIndex } from '../../core/knowledge/knowledge-index.ts';
import type { DatabaseSchema } from '../database-schema.ts';
import type { Database } from '../database.ts';
import { segmentCjk } from '../search-index/cjk-segmentation.ts';
import { isEmptyQuery, parseQueryTerms } from '../search-index/query-terms.ts';
import type { KnowledgeMatcher, PassageMatch } from './knowledge-match.ts';

/**
 * Passages written per transaction: on SQLite a transaction holds the one connection (and the
 * event loop) while it runs, so a large file is written in short ones with a turn of the event
 * loop between them.
 */
const passagesPerTransaction = 250;

/** The knowledge bases in the `knowledge_files` / `knowledge_passages` tables (migration 0011). */
export class KnowledgeIndexStore implements KnowledgeIndex {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #matcher: KnowledgeMatcher;
  readonly #now: () => number;

  constructor(database: Database, matcher: KnowledgeMatcher, now: () => number = Date.now) {
    this.#db = database.db;
    this.#matcher = matcher;
    this.#now = now;
  }

  async addFile(entry: KnowledgeFileEntry, passages: readonly string[]): Promise<void> {
    // Each upload is a new file id; a second add of one would have its cleanup below take the first one's passages.
    const indexed = await this.#db.selectFrom('knowledge_files').select('file_id').where('file_id', '=', entry.fileId).executeTakeFirst();
    if (indexed !== undefined) throw new Error(`file ${entry.fileId} is in a knowledge base already`);
    try {
      for (let start = 0; start < passages.length; start += passagesPerTransaction) {
        const rows = passages.slice(start, start + passagesPerTransaction).map((content, offset) => ({
          file_id: entry.fileId,
          position: start + offset,
          content,
          segmented_content: segmentCjk(content),
        }));
        await this.#db.insertInto('knowledge_passages').values(rows).execute();
        await nextTurn();
      }
      // Last: the file is searched from here on, with all its passages in.
      await this.#db
        .insertInto('knowledge_files')
        .values({
          file_id: entry.fileId,
          owner_key_id: entry.ownerKeyId,
          knowledge_id: entry.knowledgeId,
          sentence_size: entry.sentenceSize,
          passages: passages.length,
          characters: passages.reduce((sum, passage) => sum + passage.length, 0),
          indexed_at: this.#now(),
        })
        .execute();
    } catch (error) {
      await this.#db
        .deleteFrom('knowledge_passages')
        .where('file_id', '=', entry.fileId)
        .execute()
        .catch(() => undefined);
      throw error;
    }
  }

  async search(ownerKeyId: string, knowledgeId: string, question: string, limit: number): Promise<KnowledgeHit[] | undefined> {
    const files = await this.#filesOf(ownerKeyId, knowledgeId).select('f.filename').execute();
    if (files.length === 0) return undefined;
    const terms = parseQueryTerms(question);
    if (isEmptyQuery(terms) || limit < 1) return [];
    const fileIds = files.map((file) => file.file_id);
    const matches = await this.#matcher.match(this.#db, terms, 'all', fileIds, limit);
    if (matches.length < limit && terms.words.length + terms.phrases.length > 1) {
      // A question rarely has every one of its words in one passage: passages with some fill the rest, ranked after.
      const seen = new Set(matches.map((match) => match.id));
      for (const match of await this.#matcher.match(this.#db, terms, 'any', fileIds, limit + matches.length)) {
        if (matches.length >= limit) break;
        if (!seen.has(match.id)) matches.push(match);
      }
    }
    const filenames = new Map(files.map((file) => [file.file_id, file.filename]));
    return matches.map((match: PassageMatch) => ({
      fileId: match.fileId,
      filename: filenames.get(match.fileId) ?? '',
      position: match.position,
      content: match.content,
      score: match.score,
    }));
  }

  async has(ownerKeyId: string, knowledgeId: string): Promise<boolean> {
    return (await this.#filesOf(ownerKeyId, knowledgeId).limit(1).executeTakeFirst()) !== undefined;
  }

  /** The files of one key's knowledge base, as search sees them: those whose upload is still kept. */
  #filesOf(ownerKeyId: string, knowledgeId: string) {
    return this.#db
      .selectFrom('knowledge_files as k')
      .innerJoin('files as f', 'f.id', 'k.file_id')
      .select('k.file_id')
      .where('k.owner_key_id', '=', ownerKeyId)
      .where('k.knowledge_id', '=', knowledgeId);
  }

  async list(ownerKeyId: string | undefined): Promise<KnowledgeBaseSummary[]> {
    let query = this.#db
      .selectFrom('knowledge_files as k')
      .innerJoin('files as f', 'f.id', 'k.file_id')
      .select(['k.owner_key_id', 'k.knowledge_id', 'k.file_id', 'f.filename', 'k.sentence_size', 'k.passages', 'k.characters', 'k.indexed_at'])
      .orderBy('k.owner_key_id')
      .orderBy('k.knowledge_id')
      .orderBy('k.indexed_at')
      .orderBy('k.file_id');
    if (ownerKeyId !== undefined) query = query.where('k.owner_key_id', '=', ownerKeyId);
    const bases = new Map<string, { ownerKeyId: string; knowledgeId: string; files: KnowledgeFileSummary[] }>();
    for (const row of await query.execute()) {
      // Keyed by both ids, JSON-encoded so no pair of ids can collide.
      const key = JSON.stringify([row.owner_key_id, row.knowledge_id]);
      let base = bases.get(key);
      if (base === undefined) {
        base = { ownerKeyId: row.owner_key_id, knowledgeId: row.knowledge_id, files: [] };
        bases.set(key, base);
      }
      base.files.push({
        fileId: row.file_id,
        filename: row.filename,
        sentenceSize: Number(row.sentence_size),
        passages: Number(row.passages),
        characters: Number(row.characters),
        indexedAt: Number(row.indexed_at),
      });
    }
    return [...bases.values()].map((base) => ({ ...base, passages: base.files.reduce((sum, file) => sum + file.passages, 0) }));
  }
}
