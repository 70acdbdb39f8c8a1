import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { knowledgeTable } from '../../src/cli/knowledge.command.ts';
import type { KnowledgeIndex } from '../../src/core/knowledge/knowledge-index.ts';
import { openDatabase, type Database } from '../../src/store/database.ts';
import { FileRepository } from '../../src/store/file-repository.ts';
import { createKnowledgeIndex } from '../../src/store/knowledge/create-knowledge-index.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { databaseTargets, reportSkippedPostgres } from '../helpers/test-databases.ts';

reportSkippedPostgres();

const start = Date.UTC(2026, 0, 1);

for (const target of databaseTargets) {
  describe(`knowledge index on ${target.name}`, () => {
    let url: string | undefined;
    let dataDir: string;
    let database: Database;
    let files: FileRepository;
    let knowledge: KnowledgeIndex;

    async function addFile(id: string, owner: string, knowledgeId: string, passages: readonly string[], secondsAfterStart = 0): Promise<void> {
      const record = { id, ownerKeyId: owner, purpose: 'retrieval', filename: `${id}.txt`, bytes: 10, createdAt: new Date(start + secondsAfterStart * 1000) };
      assert.equal(await files.insertWithinLimit(record, 100), true);
      await knowledge.addFile({ fileId: id, ownerKeyId: owner, knowledgeId, sentenceSize: 300 }, passages);
    }

    async function countRows(table: string): Promise<number> {
      const result = await sql<{ count: number }>`SELECT count(*) AS count FROM ${sql.table(table)}`.execute(database.db);
      return Number(result.rows[0]?.count);
    }

    before(async () => {
      url = await target.create();
      dataDir = mkdtempSync(join(tmpdir(), 'knowledge-index-'));
      database = openDatabase({ databaseUrl: url, dataDir });
      await migrateToLatest(database);
      files = new FileRepository(database);
      knowledge = createKnowledgeIndex(database);
    });
    after(async () => {
      await database.close();
      await target.drop(url);
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('finds the passage with the question words first, fills with partial matches, and keeps each key to its own bases', async () => {
      await addFile('file-a1', 'key-a', 'kb', [
        'Orchards in the valley are pruned in late winter.',
        'The river ferry leaves at seven in the morning and returns at dusk.',
        'Apple harvests peak in the second week of October.',
      ]);
      await addFile('file-a2', 'key-a', 'kb', ['The ferry ticket costs four crowns for adults.']);
      await addFile('file-b1', 'key-b', 'kb', ['The ferry of the other key leaves at noon.']);
      const hits = await knowledge.search('key-a', 'kb', 'When does the ferry leave in the morning?', 3);
      assert.ok(hits !== undefined);
      assert.equal(hits[0]?.content, 'The river ferry leaves at seven in the morning and returns at dusk.');
      assert.equal(hits[0]?.fileId, 'file-a1');
      assert.equal(hits[0]?.filename, 'file-a1.txt');
      assert.equal(hits[0]?.position, 1);
      assert.deepEqual(
        hits.map((hit) => hit.fileId),
        ['file-a1', 'file-a2'],
        'the ticket passage fills in, the other key never',
      );
      assert.equal(await knowledge.search('key-a', 'kb-unknown', 'ferry', 3), undefined);
      assert.equal(await knowledge.search('key-c', 'kb', 'ferry', 3), undefined, "another key's knowledge id does not exist for it");
      assert.deepEqual(
        [await knowledge.has('key-a', 'kb'), await knowledge.has('key-a', 'kb-unknown'), await knowledge.has('key-c', 'kb')],
        [true, false, false],
        'has() agrees with search',
      );
      assert.deepEqual(await knowledge.search('key-a', 'kb', '?!', 3), [], 'a question without words finds nothing');
      assert.equal((await knowledge.search('key-b', 'kb', 'ferry', 3))?.[0]?.content, 'The ferry of the other key leaves at noon.');
    });

    it('reads query syntax as plain words and finds CJK text', async () => {
      await addFile('file-a3', 'key-a', 'kb-cjk', ['上海的地铁在早上五点半开始运营。', 'Column filters like content: or NEAR( are just words here.']);
      assert.equal((await knowledge.search('key-a', 'kb-cjk', '地铁几点开始运营？', 2))?.[0]?.content, '上海的地铁在早上五点半开始运营。');
      const syntax = await knowledge.search('key-a', 'kb-cjk', 'content: NEAR( "filters', 2);
      assert.match(syntax?.[0]?.content ?? '', /Column filters/);
    });

    it('lists bases with their files and passage counts, for one key or all', async () => {
      const all = await knowledge.list(undefined);
      const base = all.find((entry) => entry.ownerKeyId === 'key-a' && entry.knowledgeId === 'kb');
      assert.deepEqual(
        base?.files.map((file) => [file.fileId, file.passages]),
        [
          ['file-a1', 3],
          ['file-a2', 1],
        ],
      );
      assert.equal(base?.passages, 4);
      assert.deepEqual(
        (await knowledge.list('key-b')).map((entry) => [entry.ownerKeyId, entry.knowledgeId, entry.passages]),
        [['key-b', 'kb', 1]],
      );
      const table = knowledgeTable(await knowledge.list('key-a'));
      assert.match(table, /^key\s+knowledge_id\s+file\s+filename\s+passages\s+characters\s+indexed/);
      assert.match(table, /key-a\s+kb\s+2 files\s+4/);
      assert.match(table, /file-a2\s+file-a2\.txt\s+1\s+46/);
    });

    it('drops a file’s passages with its record, however the record goes (full-text structures included)', async () => {
      const passagesBefore = await countRows('knowledge_passages');
      assert.equal(await files.delete('key-a', 'file-a2'), true);
      assert.equal(await countRows('knowledge_passages'), passagesBefore - 1);
      const hits = await knowledge.search('key-a', 'kb', 'ticket crowns', 5);
      assert.ok(hits?.every((hit) => hit.fileId !== 'file-a2'));
      if (target.name === 'sqlite') {
        assert.equal(await countRows('knowledge_passage_files'), passagesBefore - 1);
        const indexed = await sql<{ count: number }>`SELECT count(*) AS count FROM knowledge_passages_fts WHERE knowledge_passages_fts MATCH 'crowns'`.execute(
          database.db,
        );
        assert.equal(Number(indexed.rows[0]?.count), 0, 'the FTS5 index forgot the passage');
      }
      // The retention sweep deletes records the same way: the passages follow.
      for (const file of await files.listCreatedBefore(new Date(start + 1000), 100)) await files.delete(file.ownerKeyId, file.id);
      assert.equal(await countRows('knowledge_passages'), 0);
      assert.equal(await knowledge.search('key-a', 'kb', 'ferry', 3), undefined, 'a base without files is gone');
      assert.equal(await knowledge.has('key-a', 'kb'), false);
    });

    it('searches a file only once all its passages are in, and leaves nothing of one that fails', async () => {
      const record = { id: 'file-big', ownerKeyId: 'key-a', purpose: 'retrieval', filename: 'big.txt', bytes: 10, createdAt: new Date(start) };
      assert.equal(await files.insertWithinLimit(record, 100), true);
      // Many transactions of passages, so that the test meets the add between two of them on any machine.
      const passages = Array.from({ length: 5_000 }, (_, index) => `Passage number ${index} mentions the lantern festival.`);
      const storedOf = async (fileId: string) =>
        Number((await sql<{ count: number }>`SELECT count(*) AS count FROM knowledge_passages WHERE file_id = ${fileId}`.execute(database.db)).rows[0]?.count);
      const listed = async (fileId: string) =>
        (await sql<{ count: number }>`SELECT count(*) AS count FROM knowledge_files WHERE file_id = ${fileId}`.execute(database.db)).rows[0]?.count;
      /** Waits until the add has stored some passages of the file but has well over one transaction's worth still to go. */
      const midway = async (fileId: string) => {
        for (;;) {
          const stored = await storedOf(fileId);
          if (stored > 0) return stored < passages.length - 1_000;
          await new Promise((resolve) => setImmediate(resolve));
        }
      };

      const adding = knowledge.addFile({ fileId: 'file-big', ownerKeyId: 'key-a', knowledgeId: 'kb-big', sentenceSize: 300 }, passages);
      assert.ok(await midway('file-big'), 'the add was met between its transactions');
      const early = await knowledge.search('key-a', 'kb-big', 'lantern', 3);
      // The file is listed last, once: unlisted after the search means unlisted during it.
      if (Number(await listed('file-big')) === 0) assert.equal(early, undefined, 'a file is not searched while its passages go in');
      await adding;
      assert.equal((await knowledge.search('key-a', 'kb-big', 'lantern festival', 3))?.length, 3);

      // A file whose record goes while it is being indexed: the add fails, and none of its passages stay.
      const before = await countRows('knowledge_passages');
      const gone = { ...record, id: 'file-gone' };
      assert.equal(await files.insertWithinLimit(gone, 100), true);
      const failing = knowledge.addFile({ fileId: 'file-gone', ownerKeyId: 'key-a', knowledgeId: 'kb-big', sentenceSize: 300 }, passages);
      assert.ok(await midway('file-gone'), 'the add was met between its transactions');
      await files.delete('key-a', 'file-gone');
      await assert.rejects(failing);
      assert.equal(await countRows('knowledge_passages'), before);
      await assert.rejects(knowledge.addFile({ fileId: 'file-big', ownerKeyId: 'key-a', knowledgeId: 'kb-big', sentenceSize: 300 }, ['Again.']), /already/);
      assert.equal(await countRows('knowledge_passages'), before, 'a second add of a file is refused, its passages kept');
    });
  });
}
