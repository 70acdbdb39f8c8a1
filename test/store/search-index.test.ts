import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { IndexedDocument, IndexQuery, SearchIndex } from '../../src/core/web/search-index.ts';
import { openDatabase, type Database } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { createSearchIndex } from '../../src/store/search-index/create-search-index.ts';
import { databaseTargets, reportSkippedPostgres } from '../helpers/test-databases.ts';

reportSkippedPostgres();

const day = 24 * 60 * 60 * 1000;
const now = Date.UTC(2025, 5, 15, 12);

/** Words that are in no query of these tests, to pad documents to a length. */
const filler = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua'.split(' ');
function padding(words: number, seed = 0): string {
  return Array.from({ length: words }, (_, index) => filler[(index * 7 + seed) % filler.length]).join(' ');
}

function page(url: string, title: string, content: string, extra: Partial<IndexedDocument> = {}): IndexedDocument {
  return { url, title, content, description: '', siteName: '', icon: '', publishedAt: undefined, indexedAt: now, ...extra };
}

/** Distinct topics, so each query has one right answer. */
const corpus: IndexedDocument[] = [
  page('https://www.geo.example/volcano', 'How volcanoes erupt', `Magma rises through the crust until a volcano erupts with lava and ash. ${padding(300)}`, {
    publishedAt: now - 2 * day,
    siteName: 'Geo Example',
  }),
  page(
    'https://bio.example/photosynthesis',
    'Photosynthesis',
    `Plants turn sunlight, water and carbon dioxide into sugar; chlorophyll absorbs the light. ${padding(200, 1)}`,
    {
      publishedAt: now - 20 * day,
    },
  ),
  page('https://music.example/jazz-saxophone', 'Jazz saxophone', `The saxophone became the voice of jazz in the swing era. ${padding(150, 2)}`, {
    publishedAt: now - 200 * day,
  }),
  page('https://music.example/jazz-piano', 'Jazz piano', `Jazz piano: jazz chords, jazz voicings, jazz standards and more jazz. ${padding(150, 3)}`, {
    publishedAt: now - 400 * day,
  }),
  page(
    'https://food.example/sourdough',
    'Sourdough bread',
    `A sourdough starter ferments flour and water; the bread rises slowly overnight. ${padding(200, 4)}`,
  ),
  page('https://sport.example/marathon', 'Marathon training', `Long runs build endurance before a marathon; taper in the final weeks. ${padding(200, 5)}`, {
    publishedAt: now - 5 * day,
  }),
  page('https://blog.geo.example/ash', 'Ash clouds', `An ash cloud from a volcano can ground flights for days. ${padding(120, 6)}`, {
    publishedAt: now - 10 * day,
  }),
  page('https://ample.example/volcano-toys', 'Volcano toy kit', `A baking soda volcano for children. ${padding(80, 7)}`, { publishedAt: now - 1 * day }),
  page('https://deep.example/needle', 'A long report', `${padding(1500, 8)} The rare word zephyrine appears only here, deep in the text. ${padding(1500, 9)}`, {
    publishedAt: now - 3 * day,
  }),
  page('https://cn.example/beijing', '北京天气预报', `北京今天晴，最高气温三十度。明天有雨，出门记得带伞。${padding(40, 10)}`),
  page('https://cn.example/shanghai', '上海美食', '上海的小笼包很有名，生煎包也值得一试。'),
  page('https://jp.example/tokyo', '東京の天気', '東京は今日は晴れです。'),
];

function query(index: SearchIndex, text: string, overrides: Partial<IndexQuery> = {}) {
  return index.query({ text, limit: 10, domain: undefined, publishedAfter: undefined, snippetLength: 500, ...overrides });
}

async function urls(index: SearchIndex, text: string, overrides: Partial<IndexQuery> = {}): Promise<string[]> {
  return (await query(index, text, overrides)).map((hit) => hit.document.url);
}

for (const target of databaseTargets) {
  describe(`search index on ${target.name}`, () => {
    let url: string | undefined;
    let dataDir: string;
    let database: Database;
    let index: SearchIndex;
    before(async () => {
      url = await target.create();
      dataDir = mkdtempSync(join(tmpdir(), 'search-index-test-'));
      database = openDatabase({ databaseUrl: url, dataDir });
      await migrateToLatest(database);
      index = createSearchIndex(database);
      await index.upsertMany(corpus);
    });
    after(async () => {
      await database.close();
      await target.drop(url);
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('stores every document once and reads it back whole', async () => {
      assert.equal(await index.count(), corpus.length);
      assert.equal(await index.has('https://food.example/sourdough'), true);
      assert.equal(await index.has('https://food.example/nothing'), false);
      const [hit] = await query(index, 'photosynthesis chlorophyll');
      assert.deepEqual(hit?.document, corpus[1]);
    });

    it('ranks the document about the query first', async () => {
      const cases: [string, string][] = [
        ['volcano eruption lava', 'https://www.geo.example/volcano'],
        ['sourdough starter', 'https://food.example/sourdough'],
        ['marathon taper', 'https://sport.example/marathon'],
        ['sunlight chlorophyll', 'https://bio.example/photosynthesis'],
        ['jazz saxophone', 'https://music.example/jazz-saxophone'],
        ['zephyrine', 'https://deep.example/needle'],
      ];
      for (const [text, expected] of cases) {
        const found = await urls(index, text);
        assert.equal(found[0], expected, `first result for '${text}': ${found.join(', ')}`);
      }
    });

    it('puts documents with every term before documents with some, and stems words', async () => {
      // jazz-piano says "jazz" six times but never "saxophone": it comes after the page with both.
      assert.deepEqual(await urls(index, 'jazz saxophone'), ['https://music.example/jazz-saxophone', 'https://music.example/jazz-piano']);
      assert.ok((await urls(index, 'erupting volcanoes')).includes('https://www.geo.example/volcano'), 'erupt/erupts/erupting share a stem');
      assert.deepEqual(await urls(index, 'unrelatedword'), []);
    });

    it('filters by domain: the host and its subdomains, www ignored, lookalike hosts not', async () => {
      const expected = ['https://www.geo.example/volcano', 'https://blog.geo.example/ash'];
      assert.deepEqual((await urls(index, 'volcano', { domain: 'geo.example' })).sort(), [...expected].sort());
      assert.deepEqual((await urls(index, 'volcano', { domain: 'www.geo.example' })).sort(), [...expected].sort());
      assert.deepEqual((await urls(index, 'volcano', { domain: 'https://geo.example/some/path' })).sort(), [...expected].sort());
      assert.deepEqual(await urls(index, 'volcano', { domain: 'blog.geo.example' }), ['https://blog.geo.example/ash']);
      assert.deepEqual(await urls(index, 'volcano', { domain: 'eo.example' }), [], 'a suffix that is not a whole label matches nothing');
      assert.deepEqual(await urls(index, 'volcano', { domain: '%.example' }), [], 'LIKE wildcards in the filter are literal');
      assert.equal((await urls(index, 'volcano')).length, 3);
    });

    it('filters by publish date and leaves undated documents out', async () => {
      const lastWeek = await urls(index, 'volcano ash sourdough marathon', { publishedAfter: now - 7 * day });
      assert.deepEqual(lastWeek.sort(), ['https://ample.example/volcano-toys', 'https://sport.example/marathon', 'https://www.geo.example/volcano'].sort());
      assert.ok(!lastWeek.includes('https://food.example/sourdough'), 'undated');
      assert.deepEqual(await urls(index, 'jazz', { publishedAfter: now - 365 * day }), ['https://music.example/jazz-saxophone']);
    });

    it('returns at most limit results', async () => {
      assert.equal((await urls(index, 'volcano ash jazz', { limit: 2 })).length, 2);
      assert.equal((await urls(index, 'volcano ash jazz', { limit: 1 })).length, 1);
      assert.equal((await urls(index, 'volcano ash jazz', { limit: 50 })).length, 5);
    });

    it('cuts snippets to the size asked, around the hit', async () => {
      const [medium] = await query(index, 'zephyrine', { snippetLength: 500 });
      const [high] = await query(index, 'zephyrine', { snippetLength: 2500 });
      assert.ok(medium !== undefined && high !== undefined);
      assert.ok(medium.snippet.length <= 500 && medium.snippet.length >= 400, `medium length ${medium.snippet.length}`);
      assert.ok(high.snippet.length <= 2500 && high.snippet.length >= 2300, `high length ${high.snippet.length}`);
      assert.ok(medium.snippet.includes('zephyrine'), 'the hit, 10,000 characters into the text, is in the snippet');
      assert.ok(high.snippet.includes('zephyrine'));
      assert.ok(high.snippet.includes(medium.snippet.slice(50, 300)), 'the long window contains the short one');
      const words = ` ${medium.document.content} `;
      for (const snippet of [medium.snippet, high.snippet]) {
        const cut = snippet.split(' ');
        assert.ok(
          words.includes(` ${cut[0]} `) && words.includes(` ${cut.at(-1)} `),
          `whole words at both ends: ${snippet.slice(0, 40)}…${snippet.slice(-40)}`,
        );
      }
      for (const text of ['lava', 'chlorophyll', 'taper']) {
        const [hit] = await query(index, text);
        assert.ok(hit?.snippet.toLowerCase().includes(text), `snippet for '${text}': ${hit?.snippet.slice(0, 120)}`);
      }
      const [short] = await query(index, 'baking soda', { snippetLength: 2500 });
      assert.equal(short?.snippet, short?.document.content.replace(/\s+/g, ' '), 'a short document is its own snippet');
    });

    it('reads query operators and punctuation as plain words', async () => {
      const before = await index.count();
      const attempts = [
        'NOT volcano',
        'volcano NOT lava',
        'title:jazz',
        '"unbalanced quote volcano',
        'volcano*',
        'NEAR(volcano ash, 2)',
        'volcano OR',
        '-volcano',
        '^volcano',
        'volcano & !lava | (ash <-> cloud)',
        "'; DROP TABLE search_documents; --",
        '))) volcano (((',
        'col:*',
        '\u0000 volcano',
        '""',
        ':',
      ];
      for (const text of attempts) {
        const hits = await query(index, text);
        for (const hit of hits) {
          const words = index.searchTerms(text).map((term) => term.replaceAll('"', '').split(' ')[0] ?? '');
          const haystack = `${hit.document.title} ${hit.document.content}`.toLowerCase();
          assert.ok(
            words.some((word) => haystack.includes(word.slice(0, 4))),
            `'${text}' found ${hit.document.url}`,
          );
        }
      }
      assert.deepEqual(await urls(index, 'NOT volcano', { domain: 'geo.example' }), await urls(index, 'volcano', { domain: 'geo.example' }));
      assert.equal(await index.count(), before);
      assert.deepEqual(await query(index, '*'), []);
      assert.deepEqual(await query(index, '   '), []);
    });

    it('finds Chinese and Japanese words in text written without spaces', async () => {
      assert.deepEqual(await urls(index, '北京'), ['https://cn.example/beijing']);
      assert.deepEqual(await urls(index, '小笼包'), ['https://cn.example/shanghai']);
      assert.deepEqual(await urls(index, '東京'), ['https://jp.example/tokyo']);
      assert.deepEqual(await urls(index, '京东'), [], 'the characters, but not together');
      const sentence = await urls(index, '北京今天的天气怎么样');
      assert.equal(sentence[0], 'https://cn.example/beijing', 'a whole sentence finds the page with most of its words');
      const [shanghai] = await query(index, '生煎');
      assert.equal(shanghai?.snippet, '上海的小笼包很有名，生煎包也值得一试。', 'snippets are the text as written');
      const [beijing] = await query(index, '带伞', { snippetLength: 30 });
      assert.ok(beijing?.snippet.includes('带伞'), `snippet around the hit: ${beijing?.snippet}`);
      assert.deepEqual(index.searchTerms('北京的天气 forecast'), ['forecast', '北京的天气']);
      assert.deepEqual(await urls(index, 'beijing 北京'), ['https://cn.example/beijing'], 'all terms or some: the page with some is found');
    });

    it('matches quoted phrases as phrases', async () => {
      assert.deepEqual(await urls(index, '"ash cloud"'), ['https://blog.geo.example/ash']);
      assert.deepEqual(await urls(index, '"cloud ash"', { limit: 1 }), [], 'the words, but not in that order');
      assert.deepEqual(index.searchTerms('The "ash cloud" of a volcano'), ['volcano', '"ash cloud"']);
      assert.deepEqual(index.searchTerms('the of'), ['the', 'of'], 'common words count when there is nothing else');
    });

    it('replaces a document by URL and removes by URL or prefix, keeping the full text in step', async () => {
      assert.deepEqual(await urls(index, 'sourdough', { publishedAfter: now - day }), [], 'undated so far');
      await index.upsert(page('https://food.example/sourdough', 'Sourdough bread', 'Rye sourdough with caraway seeds.', { publishedAt: now }));
      assert.equal(await index.count(), corpus.length);
      assert.deepEqual(await urls(index, 'caraway'), ['https://food.example/sourdough']);
      assert.deepEqual(await urls(index, 'overnight'), [], 'the old text is no longer indexed');
      assert.deepEqual(await urls(index, 'sourdough', { publishedAfter: now - day }), ['https://food.example/sourdough'], 'the new date filters');

      await index.upsertMany([page('https://food.example/a', 'Apple pie', 'apple'), page('https://food.example/b', 'Banana bread', 'banana')]);
      assert.equal(await index.remove('https://food.example/a'), 1);
      assert.equal(await index.remove('https://food.example/a'), 0);
      assert.equal(await index.remove('https://food.example/*'), 2);
      assert.deepEqual(await urls(index, 'caraway banana apple'), []);
      assert.equal(await index.remove('https://music.example/jazz_*'), 0, 'a prefix is literal, not a LIKE pattern');
      assert.equal(await index.remove('https://music.example/jazz-*'), 2);
      assert.equal(await index.count(), corpus.length - 3);
      assert.deepEqual(await urls(index, 'jazz'), []);
      assert.deepEqual(await urls(index, 'jazz', { publishedAfter: 0 }), [], 'removed from the filters as well');
    });
  });
}
