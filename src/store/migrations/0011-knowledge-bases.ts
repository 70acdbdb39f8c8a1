import { sql, type Kysely } from 'kysely';
import { isPostgres } from './dialect-of.ts';

/**
 * Knowledge bases for the chat retrieval tool: files uploaded with `purpose=retrieval` and a
 * `knowledge_id`, cut into passages and indexed with the same full-text machinery as the search
 * index (0004), in tables of their own so passages never show up in web search results.
 *
 * `knowledge_files`: one row per indexed file, written after all its passages, so a file still
 * being indexed is not searched. `knowledge_passages`: the passages. Both reference `files` with
 * ON DELETE CASCADE: however a file goes (DELETE /files, the retention sweep), its passages go
 * with it, in the database itself.
 */
export async function up(database: Kysely<unknown>): Promise<void> {
  const postgres = isPostgres(database);
  await database.schema
    .createTable('knowledge_files')
    .addColumn('file_id', 'varchar(64)', (column) => column.primaryKey().references('files.id').onDelete('cascade'))
    .addColumn('owner_key_id', 'varchar(128)', (column) => column.notNull())
    .addColumn('knowledge_id', 'varchar(128)', (column) => column.notNull())
    .addColumn('sentence_size', 'integer', (column) => column.notNull())
    .addColumn('passages', 'integer', (column) => column.notNull())
    .addColumn('characters', 'bigint', (column) => column.notNull())
    .addColumn('indexed_at', 'bigint', (column) => column.notNull())
    .execute();
  // A search reads the files of one knowledge base of one key.
  await database.schema.createIndex('knowledge_files_base').on('knowledge_files').columns(['owner_key_id', 'knowledge_id']).execute();
  await database.schema
    .createTable('knowledge_passages')
    .addColumn('id', postgres ? 'bigserial' : 'integer', (column) => column.primaryKey())
    .addColumn('file_id', 'varchar(64)', (column) => column.notNull().references('files.id').onDelete('cascade'))
    .addColumn('position', 'integer', (column) => column.notNull())
    .addColumn('content', 'text', (column) => column.notNull())
    .addColumn('segmented_content', 'text')
    .execute();
  await database.schema.createIndex('knowledge_passages_file').on('knowledge_passages').column('file_id').execute();
  if (postgres) {
    await sql`
      ALTER TABLE knowledge_passages ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
        to_tsvector('english', coalesce(segmented_content, content))
      ) STORED`.execute(database);
    await sql`CREATE INDEX knowledge_passages_vector ON knowledge_passages USING GIN (search_vector)`.execute(database);
    return;
  }
  await sql`
    CREATE VIEW knowledge_passages_text AS
    SELECT id, coalesce(segmented_content, content) AS content FROM knowledge_passages`.execute(database);
  await sql`
    CREATE VIRTUAL TABLE knowledge_passages_fts USING fts5(
      content, content='knowledge_passages_text', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
    )`.execute(database);
  // Which file each passage is of, in a narrow table: a search checks it for every full-text match.
  await sql`CREATE TABLE knowledge_passage_files (id INTEGER PRIMARY KEY, file_id VARCHAR(64) NOT NULL)`.execute(database);
  await sql`
    CREATE TRIGGER knowledge_passages_ai AFTER INSERT ON knowledge_passages BEGIN
      INSERT INTO knowledge_passages_fts(rowid, content) VALUES (new.id, coalesce(new.segmented_content, new.content));
      INSERT INTO knowledge_passage_files(id, file_id) VALUES (new.id, new.file_id);
    END`.execute(database);
  await sql`
    CREATE TRIGGER knowledge_passages_ad AFTER DELETE ON knowledge_passages BEGIN
      INSERT INTO knowledge_passages_fts(knowledge_passages_fts, rowid, content)
      VALUES ('delete', old.id, coalesce(old.segmented_content, old.content));
      DELETE FROM knowledge_passage_files WHERE id = old.id;
    END`.execute(database);
}

export async function down(database: Kysely<unknown>): Promise<void> {
  if (!isPostgres(database)) {
    await sql`DROP TABLE IF EXISTS knowledge_passages_fts`.execute(database);
    await sql`DROP VIEW IF EXISTS knowledge_passages_text`.execute(database);
    await sql`DROP TABLE IF EXISTS knowledge_passage_files`.execute(database);
  }
  await database.schema.dropTable('knowledge_passages').execute();
  await database.schema.dropTable('knowledge_files').execute();
}
