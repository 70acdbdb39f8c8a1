// npm run bench:search — the local search index on a generated 100k-document corpus: build time,
// then queries/s and latency percentiles per kind of query, against a baseline measured in the
// same run (a LIKE scan of the same table: what a search without the full-text index costs).
// SQLite FTS5 in a temporary directory by default; BENCH_DATABASE_URL=postgres://… (an empty
// database) measures PostgreSQL full-text search instead.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { IndexedDocument, IndexQuery } from '../../src/core/web/search-index.ts';
import { openDatabase } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { createSearchIndex } from '../../src/store/search-index/create-search-index.ts';
import { percentile } from './load.ts';

const databaseUrl = process.env['BENCH_DATABASE_URL'];
const documentCount = Number(process.env['BENCH_DOCUMENTS'] ?? '100000');
const rounds = Number(process.env['BENCH_ROUNDS'] ?? '200');
const batchSize = 1000;
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
  } finally {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
