// npm run bench:search — the local search index on a generated 100k-document corpus: build time,
// then queries/s and latency percentiles per kind of query, against a baseline measured in the
// same run (a LIKE scan of the same table: what a search without the full-text index costs).
// SQLite FTS5 in a temporary directory by default; BENCH_DATABASE_URL=postgres://… (an empty
// database) measures PostgreSQL full-text search instead. Then the chat retrieval tool's case: a
// knowledge base of BENCH_KNOWLEDGE_PASSAGES passages (10,000; another key's base of 2,000 beside
// it), searched with questions; the target is p50 ≤ 10 ms on SQLite.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { IndexedDocument, IndexQuery } from '../../src/core/web/search-index.ts';
import { openDatabase } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { createSearchIndex } from '../../src/store/search-index/create-search-index.ts';
import type { Database } from '../../src/store/database.ts';
import { FileRepository } from '../../src/store/file-repository.ts';
import { createKnowledgeIndex } from '../../src/store/knowledge/create-knowledge-index.ts';
import { retrievedPassages } from '../../src/core/knowledge/chat-retrieval.ts';
import { percentile } from './load.ts';

const databaseUrl = process.env['BENCH_DATABASE_URL'];
const documentCount = Number(process.env['BENCH_DOCUMENTS'] ?? '100000');
const rounds = Number(process.env['BENCH_ROUNDS'] ?? '200');
const batchSize = 1000;
const knowledgePassages = Number(process.env['BENCH_KNOWLEDGE_PASSAGES'] ?? '10000');
/** Passages per uploaded file (a key keeps at most 100 files). */
const passagesPerFile = 500;
/** Target of the knowledge-base case: p50 of one retrieval on SQLite. */
const knowledgeTargetMs = 10;
const vocabularySize = 30_000;
const day = 24 * 60 * 60 * 1000;
const epoch = Date.UTC(2025, 0, 1);

/** mulberry32: the same corpus on every run and machine. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const syllables = 'ka ri to mu sen la dor vi ne pa quo zel tri mon ga fe lu bri sta no'.split(' ');
/** Word of rank i: distinct, pronounceable, made of syllables (no English stop word can appear). */
function word(rank: number): string {
  let text = '';
  let value = rank + syllables.length;
  while (value > 0) {
    text += syllables[value % syllables.length];
    value = Math.floor(value / syllables.length);
  }
  return text;
}
const vocabulary = Array.from({ length: vocabularySize }, (_, rank) => word(rank));

/** Zipf-distributed ranks (exponent 1.05), as in natural text: a few words everywhere, most rare. */
const cumulative = (() => {
  const weights = vocabulary.map((_, rank) => 1 / Math.pow(rank + 1, 1.05));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let running = 0;
  return weights.map((weight) => (running += weight / total));
})();
function zipfWord(next: () => number): string {
  const target = next();
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((cumulative[middle] ?? 1) < target) low = middle + 1;
    else high = middle;
  }
  return vocabulary[low] ?? '';
}

function generatedDocument(index: number, next: () => number): IndexedDocument {
  const words = (count: number) => Array.from({ length: count }, () => zipfWord(next)).join(' ');
  const sentences = Array.from({ length: 10 + Math.floor(next() * 30) }, () => `${words(6 + Math.floor(next() * 14))}.`);
  const site = Math.floor(next() * 500);
  return {
    url: `https://site${site}.example/doc/${index}`,
    title: words(3 + Math.floor(next() * 5)),
    content: sentences.join(' '),
    description: '',
    siteName: '',
    icon: '',
    publishedAt: next() < 0.8 ? epoch - Math.floor(next() * 3 * 365) * day : undefined,
    indexedAt: epoch,
  };
}

interface QueryKind {
  readonly name: string;
  readonly query: Omit<IndexQuery, 'limit' | 'snippetLength'> & { limit?: number; snippetLength?: number };
  /** The baseline's LIKE term, for single-word kinds. */
  readonly likeTerm?: string;
}

const queryKinds: QueryKind[] = [
  { name: 'rare word', query: { text: vocabulary[20_000] ?? '', domain: undefined, publishedAfter: undefined }, likeTerm: vocabulary[20_000] ?? '' },
  { name: 'mid-frequency word', query: { text: vocabulary[500] ?? '', domain: undefined, publishedAfter: undefined }, likeTerm: vocabulary[500] ?? '' },
  { name: 'common word', query: { text: vocabulary[3] ?? '', domain: undefined, publishedAfter: undefined }, likeTerm: vocabulary[3] ?? '' },
  { name: 'two words', query: { text: `${vocabulary[120]} ${vocabulary[900]}`, domain: undefined, publishedAfter: undefined } },
  {
    name: 'four words',
    query: { text: `${vocabulary[40]} ${vocabulary[300]} ${vocabulary[2000]} ${vocabulary[7000]}`, domain: undefined, publishedAfter: undefined },
  },
  { name: 'phrase', query: { text: `"${vocabulary[0]} ${vocabulary[1]}"`, domain: undefined, publishedAfter: undefined } },
  { name: 'word + domain', query: { text: vocabulary[60] ?? '', domain: 'site42.example', publishedAfter: undefined } },
  { name: 'word + oneMonth', query: { text: vocabulary[60] ?? '', domain: undefined, publishedAfter: epoch - 30 * day } },
  { name: 'word, high content', query: { text: vocabulary[250] ?? '', domain: undefined, publishedAfter: undefined, snippetLength: 2500 } },
  { name: 'word, count 50', query: { text: vocabulary[250] ?? '', domain: undefined, publishedAfter: undefined, limit: 50 } },
];

function summary(durations: number[]): { perSecond: number; p50: number; p95: number } {
  const total = durations.reduce((sum, value) => sum + value, 0);
  const sorted = [...durations].sort((left, right) => left - right);
  return { perSecond: durations.length / (total / 1000), p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95) };
}

function column(text: string | number, width: number): string {
  return String(text).padStart(width);
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-search-'));
  const database = openDatabase({ databaseUrl, dataDir });
  try {
    await migrateToLatest(database);
    const index = createSearchIndex(database);
    const next = random(20260101);
    const buildStart = performance.now();
    let generatedMs = 0;
    for (let start = 0; start < documentCount; start += batchSize) {
      const generateStart = performance.now();
      const batch = Array.from({ length: Math.min(batchSize, documentCount - start) }, (_, offset) => generatedDocument(start + offset, next));
      generatedMs += performance.now() - generateStart;
      await index.upsertMany(batch);
    }
    const buildMs = performance.now() - buildStart - generatedMs;
    const size = databaseUrl === undefined ? `, database ${(statSync(join(dataDir, 'platform.db')).size / 1024 / 1024).toFixed(0)} MB` : '';
    console.log(
      `${database.dialect}: ${documentCount} documents indexed in ${(buildMs / 1000).toFixed(1)} s (${Math.round(documentCount / (buildMs / 1000))} documents/s, text generation excluded)${size}`,
    );

    console.log(`\n${rounds} rounds of each query, one at a time (limit 10, snippet 500 characters unless said)`);
    console.log(
      `${'query'.padEnd(20)} | ${column('hits', 4)} | ${column('queries/s', 9)} | ${column('p50 ms', 7)} | ${column('p95 ms', 7)} | LIKE scan: rows, p50 ms | speed-up`,
    );
    const all: number[] = [];
    for (const kind of queryKinds) {
      const query: IndexQuery = { limit: 10, snippetLength: 500, ...kind.query };
      const hits = (await index.query(query)).length;
      const durations: number[] = [];
      for (let round = 0; round < rounds; round += 1) {
        const started = performance.now();
        await index.query(query);
        durations.push(performance.now() - started);
      }
      all.push(...durations);
      const measured = summary(durations);
      let baseline = '';
      if (kind.likeTerm !== undefined) {
        const scans: number[] = [];
        let rows = 0;
        for (let round = 0; round < 3; round += 1) {
          const started = performance.now();
          const found = await sql`SELECT id FROM search_documents WHERE content LIKE ${`%${kind.likeTerm}%`} OR title LIKE ${`%${kind.likeTerm}%`}`.execute(
            database.db,
          );
          scans.push(performance.now() - started);
          rows = found.rows.length;
        }
        const scan = summary(scans).p50;
        baseline = `${column(rows, 6)}, ${column(scan.toFixed(1), 7)} ms | ${column(`${(scan / measured.p50).toFixed(0)}x`, 8)}`;
      }
      console.log(
        `${kind.name.padEnd(20)} | ${column(hits, 4)} | ${column(measured.perSecond.toFixed(0), 9)} | ${column(measured.p50.toFixed(2), 7)} | ${column(measured.p95.toFixed(2), 7)} | ${baseline}`,
      );
    }
    const overall = summary(all);
    console.log(
      `${'all kinds'.padEnd(20)} | ${column('', 4)} | ${column(overall.perSecond.toFixed(0), 9)} | ${column(overall.p50.toFixed(2), 7)} | ${column(overall.p95.toFixed(2), 7)} |`,
    );
    await knowledgeBaseCase(database);
  } finally {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** About 300 characters of generated sentences, as the default sentence_size cuts a document. */
function generatedPassage(next: () => number): string {
  let text = '';
  while (text.length < 260) text += `${Array.from({ length: 6 + Math.floor(next() * 10) }, () => zipfWord(next)).join(' ')}. `;
  return text.trim();
}

/**
 * The chat retrieval tool's search: one knowledge base of `knowledgePassages` passages in files of
 * `passagesPerFile`, another key's base beside it, and questions made of a stored passage's words
 * among English stop words, as a user asks. Baseline: a LIKE scan of the base's passages for the
 * question's rarest word.
 */
async function knowledgeBaseCase(database: Database): Promise<void> {
  if (knowledgePassages < 1) return;
  const files = new FileRepository(database);
  const knowledge = createKnowledgeIndex(database);
  const next = random(20260202);
  const stored: string[] = [];
  const buildStart = performance.now();
  const bases = [
    { owner: 'bench-key', knowledgeId: 'bench-kb', passages: knowledgePassages },
    { owner: 'bench-other-key', knowledgeId: 'bench-kb', passages: Math.min(2000, knowledgePassages) },
  ];
  for (const base of bases) {
    for (let file = 0; file * passagesPerFile < base.passages; file += 1) {
      const id = `file-${base.owner}-${file}`;
      await files.insertWithinLimit({ id, ownerKeyId: base.owner, purpose: 'retrieval', filename: `${id}.txt`, bytes: 0, createdAt: new Date(epoch) }, 100);
      const passages = Array.from({ length: Math.min(passagesPerFile, base.passages - file * passagesPerFile) }, () => generatedPassage(next));
      if (base.owner === 'bench-key') stored.push(...passages);
      await knowledge.addFile({ fileId: id, ownerKeyId: base.owner, knowledgeId: base.knowledgeId, sentenceSize: 300 }, passages);
    }
  }
  const buildSeconds = (performance.now() - buildStart) / 1000;
  console.log(`
knowledge base: ${knowledgePassages} passages (and ${bases[1]?.passages} of another key) indexed in ${buildSeconds.toFixed(1)} s`);
  const questions = Array.from({ length: rounds }, () => {
    const words = (stored[Math.floor(next() * stored.length)] ?? '').replace(/\./g, '').split(' ');
    const picked = Array.from({ length: 3 }, () => words[Math.floor(next() * words.length)] ?? '');
    return {
      text: `what is the ${picked[0]} of ${picked[1]} and ${picked[2]}?`,
      rarest: [...picked].sort((left, right) => vocabulary.indexOf(right) - vocabulary.indexOf(left))[0] ?? '',
    };
  });
  const durations: number[] = [];
  let hits = 0;
  for (const question of questions) {
    const started = performance.now();
    const found = await knowledge.search('bench-key', 'bench-kb', question.text, retrievedPassages);
    durations.push(performance.now() - started);
    hits += found?.length ?? 0;
  }
  const scans: number[] = [];
  for (const question of questions.slice(0, 5)) {
    const started = performance.now();
    await sql`SELECT p.id FROM knowledge_passages p JOIN knowledge_files k ON k.file_id = p.file_id
      WHERE k.owner_key_id = 'bench-key' AND k.knowledge_id = 'bench-kb' AND p.content LIKE ${`%${question.rarest}%`}`.execute(database.db);
    scans.push(performance.now() - started);
  }
  const measured = summary(durations);
  const scan = summary(scans).p50;
  console.log(
    `${rounds} questions, top ${retrievedPassages} passages (${(hits / rounds).toFixed(1)} found on average): p50 ${measured.p50.toFixed(2)} ms, p95 ${measured.p95.toFixed(2)} ms ` +
      `(target p50 ≤ ${knowledgeTargetMs} ms on SQLite: ${measured.p50 <= knowledgeTargetMs ? 'met' : 'NOT met'}); LIKE scan of the base p50 ${scan.toFixed(1)} ms (${(scan / measured.p50).toFixed(0)}x)`,
  );
}

await main();
