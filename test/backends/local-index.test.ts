import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createLocalIndexBackend } from '../../src/backends/local-index/local-index.backend.ts';
import { LocalIndexSearcher } from '../../src/backends/local-index/local-index-searcher.ts';
import type { IndexedDocument, SearchIndex } from '../../src/core/web/search-index.ts';
import type { SearchQuery } from '../../src/core/web/web-searcher.ts';
import { openDatabase, type Database } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { createSearchIndex } from '../../src/store/search-index/create-search-index.ts';

const day = 24 * 60 * 60 * 1000;
const now = Date.UTC(2025, 0, 31, 12);
const longText = (topic: string) => `${topic}. ${Array.from({ length: 800 }, (_, index) => `${topic} word${index % 50}`).join(' ')}`;

function page(url: string, title: string, content: string, extra: Partial<IndexedDocument> = {}): IndexedDocument {
  return { url, title, content, description: '', siteName: '', icon: '', publishedAt: undefined, indexedAt: now, ...extra };
}

function searchQuery(query: string, overrides: Partial<SearchQuery> = {}): SearchQuery {
  return {
    query,
    count: 10,
    domainFilter: undefined,
    recencyFilter: 'noLimit',
    contentSize: 'medium',
    intent: false,
    signal: new AbortController().signal,
    ...overrides,
  };
}

let dataDir: string;
let database: Database;
let index: SearchIndex;
before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'local-index-test-'));
  database = openDatabase({ databaseUrl: undefined, dataDir });
  await migrateToLatest(database);
  index = createSearchIndex(database);
  await index.upsertMany([
    page('https://news.example.com/comet', 'Comet seen tonight', longText('comet'), {
      siteName: 'Example News',
      icon: 'https://cdn.example.com/news.png',
      publishedAt: now - 6 * 60 * 60 * 1000,
    }),
    page('https://www.astro.example/comet-tails', 'Why comets have tails', 'A comet tail points away from the sun.', { publishedAt: now - 3 * day }),
    page('https://astro.example/comet-history', 'Comets in history', 'Halley saw the comet return.', { publishedAt: now - 20 * day }),
    page('https://old.example/comet-1900', 'Comet of 1900', 'An old comet report.', { publishedAt: now - 200 * day }),
    page('https://undated.example/comet', 'Undated comet page', 'A comet page without a date.'),
    page('file:///srv/notes/comet.md', 'Comet notes', 'My comet notes.', { publishedAt: now - 400 * day }),
  ]);
});
after(async () => {
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('local-index engine', () => {
  it('is built from the platform index with no configuration and fills every result field', async () => {
    const backend = createLocalIndexBackend({
      modelName: 'search-prime',
      entry: { backend: 'local-index' },
      configDir: '.',
      resources: { searchIndex: index, reader: { read: () => Promise.reject(new Error('not used')) } },
    });
    assert.ok(backend.search !== undefined);
    const { results, intents } = await backend.search.search(searchQuery('comet tails'));
    assert.deepEqual(intents, []);
    assert.deepEqual(results[0], {
      title: 'Why comets have tails',
      content: 'A comet tail points away from the sun.',
      link: 'https://www.astro.example/comet-tails',
      media: 'www.astro.example',
      icon: 'https://www.astro.example/favicon.ico',
      refer: 'ref_1',
      publishDate: '2025-01-28',
    });
    assert.deepEqual(
      results.map((result) => result.refer),
      results.map((_, rank) => `ref_${rank + 1}`),
    );
  });

  it("uses the page's site name and icon when known, none for a local file, and empty dates when undated", async () => {
    const searcher = new LocalIndexSearcher(index, () => now);
    const { results } = await searcher.search(searchQuery('comet'));
    const byLink = new Map(results.map((result) => [result.link, result]));
    assert.equal(byLink.get('https://news.example.com/comet')?.media, 'Example News');
    assert.equal(byLink.get('https://news.example.com/comet')?.icon, 'https://cdn.example.com/news.png');
    assert.equal(byLink.get('https://news.example.com/comet')?.publishDate, '2025-01-31');
    assert.equal(byLink.get('file:///srv/notes/comet.md')?.media, '');
    assert.equal(byLink.get('file:///srv/notes/comet.md')?.icon, '');
    assert.equal(byLink.get('https://undated.example/comet')?.publishDate, '');
    assert.equal(results.length, 6);
  });

  it('maps the recency filters to windows back from now and leaves undated pages out', async () => {
    const searcher = new LocalIndexSearcher(index, () => now);
    const links = async (recencyFilter: SearchQuery['recencyFilter']) =>
      (await searcher.search(searchQuery('comet', { recencyFilter }))).results.map((result) => result.link).sort();
    assert.deepEqual(await links('oneDay'), ['https://news.example.com/comet']);
    assert.deepEqual(await links('oneWeek'), ['https://news.example.com/comet', 'https://www.astro.example/comet-tails']);
    assert.deepEqual(await links('oneMonth'), [
      'https://astro.example/comet-history',
      'https://news.example.com/comet',
      'https://www.astro.example/comet-tails',
    ]);
    assert.equal((await links('oneYear')).length, 4);
    assert.ok(!(await links('oneYear')).includes('https://undated.example/comet'));
    assert.equal((await links('noLimit')).length, 6);
  });

  it('applies count and the domain filter', async () => {
    const searcher = new LocalIndexSearcher(index, () => now);
    assert.equal((await searcher.search(searchQuery('comet', { count: 2 }))).results.length, 2);
    const astro = await searcher.search(searchQuery('comet', { domainFilter: 'www.astro.example' }));
    assert.deepEqual(astro.results.map((result) => result.link).sort(), ['https://astro.example/comet-history', 'https://www.astro.example/comet-tails']);
  });

  it('gives about 500 characters for medium and about 2,500 for high', async () => {
    const searcher = new LocalIndexSearcher(index, () => now);
    const medium = (await searcher.search(searchQuery('comet', { domainFilter: 'news.example.com' }))).results[0];
    const high = (await searcher.search(searchQuery('comet', { domainFilter: 'news.example.com', contentSize: 'high' }))).results[0];
    assert.ok(medium !== undefined && high !== undefined);
    assert.ok(medium.content.length > 400 && medium.content.length <= 500, `medium: ${medium.content.length}`);
    assert.ok(high.content.length > 2300 && high.content.length <= 2500, `high: ${high.content.length}`);
    assert.ok(medium.content.includes('comet') && high.content.includes('comet'));
  });

  it('reports the intent only when asked: the whole query searched, with its significant terms', async () => {
    const searcher = new LocalIndexSearcher(index, () => now);
    const { intents } = await searcher.search(searchQuery('What is the tail of a comet?', { intent: true }));
    assert.deepEqual(intents, [{ query: 'What is the tail of a comet?', intent: 'SEARCH_ALL', keywords: 'tail comet' }]);
  });

  it('stops when the client is gone', async () => {
    const controller = new AbortController();
    controller.abort(new Error('client gone'));
    await assert.rejects(new LocalIndexSearcher(index).search(searchQuery('comet', { signal: controller.signal })), /client gone/);
  });
});
