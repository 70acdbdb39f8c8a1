import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ReadResult } from '../../../src/core/web/web-reader.ts';
import { dotDataUrl, startFakeWeb, type FakeWeb } from '../../helpers/fake-web.ts';
import { openTestReader, readOptions, type TestReader } from './open-test-reader.ts';

describe('reader: HTML pages', () => {
  let web: FakeWeb;
  let test: TestReader;
  let article: ReadResult;
  const base = (path: string): string => web.url(path);
  before(async () => {
    web = await startFakeWeb();
    test = await openTestReader({ fetch: { allow: ['127.0.0.1'] }, reader: { cacheTtlSeconds: 0 } });
    article = await test.reader.read(web.url('/blog/article.html'), readOptions());
  });
  after(async () => {
    await test.close();
    await web.close();
  });

  it('keeps the article and leaves out navigation and footer', () => {
    assert.equal(article.url, web.url('/blog/article.html'));
    // Readability drops the <h1> that repeats the title, which the result carries on its own.
    assert.match(article.content, /^This article links/);
    assert.match(article.content, /^## A table$/m);
    assert.match(article.content, /Paragraph 4 of the article\./);
    assert.doesNotMatch(article.content, /About us|Footer text/);
  });

  it('makes every link and image absolute against the final URL', () => {
    assert.ok(article.content.includes(`[a relative page](${base('/blog/other/page.html')})`));
    assert.ok(article.content.includes(`[a parent page](${base('/up.html')})`));
    assert.ok(article.content.includes(`[a root page](${base('/root.html')})`));
    assert.ok(article.content.includes(`[its own notes](${base('/blog/article.html#notes')})`));
    assert.ok(article.content.includes(`![A chart](${base('/blog/images/chart.png')})`));
  });

  it('writes GitHub Flavored Markdown: tables and strikethrough', () => {
    assert.match(article.content, /\| Planet \| Moons \|\n\| --- \| --- \|\n\| Earth \| 1 \|\n\| Mars \| 2 \|/);
    assert.match(article.content, /~struck~/);
  });

  it('writes a pipe table for a legacy table without a heading row (its first row becomes the heading)', async () => {
    const result = await test.reader.read(web.url('/legacy-table.html'), readOptions());
    assert.match(result.content, /\| \*\*Name\*\* \| \*\*Age\*\* \|\n\| --- \| --- \|\n\| Ann \| 31 \|\n\| Bob \| 42 \|/);
    assert.doesNotMatch(result.content, /<table/);
  });

  it('fences code blocks with their language, indentation kept', () => {
    assert.ok(article.content.includes('```typescript\nconst answer: number = 42;\nconsole.log(answer);\n```'));
    assert.ok(article.content.includes('```python\nprint("indented")\n    print("kept")\n```'));
  });

  it('drops data-URL images by default', () => {
    assert.ok(!article.content.includes('data:image'));
    assert.match(article.content, /An inline dot: +ends here\./);
  });

  it('reads title, description, metadata, stylesheets and the publication time', () => {
    assert.equal(article.title, 'Reading the Fake Web');
    assert.equal(article.description, 'An article the reader tests read.');
    assert.equal(article.metadata['keywords'], 'reader, test, fake web');
    assert.equal(article.metadata['viewport'], 'width=device-width, initial-scale=1');
    assert.equal(article.metadata['description'], 'An article the reader tests read.');
    assert.equal(article.metadata['format-detection'], 'telephone=no');
    assert.equal(article.metadata['og:title'], 'Reading the Fake Web (Open Graph)');
    assert.deepEqual(article.stylesheets, { [base('/static/site.css')]: '', [base('/blog/print.css')]: 'print' });
    assert.equal(article.publishedTime, '2024-05-06T05:08:09.000Z');
    assert.equal(article.images, undefined);
    assert.equal(article.links, undefined);
  });

  it('answers the images and links summaries when asked (URL → alt, URL → text)', async () => {
    const result = await test.reader.read(web.url('/blog/article.html'), readOptions({ withImagesSummary: true, withLinksSummary: true }));
    assert.deepEqual(result.images, { [base('/blog/images/chart.png')]: 'A chart' });
    assert.equal(result.links?.[base('/blog/other/page.html')], 'a relative page');
    assert.equal(result.links?.[base('/about')], 'About us', 'links of the whole page, navigation included');
    assert.equal(result.links?.[base('/')], 'Home');
  });

  it('keeps data-URL images when keep_img_data_url is set', async () => {
    const result = await test.reader.read(web.url('/blog/article.html'), readOptions({ keepImgDataUrl: true, withImagesSummary: true }));
    assert.ok(result.content.includes(`![A dot](${dotDataUrl})`));
    assert.equal(result.images?.[dotDataUrl], 'A dot');
  });

  it('drops every image when retain_images is false, captions kept', async () => {
    const result = await test.reader.read(web.url('/blog/article.html'), readOptions({ retainImages: false, keepImgDataUrl: true }));
    assert.doesNotMatch(result.content, /!\[/);
    assert.match(result.content, /The chart caption/);
  });

  it('writes no GFM tables or strikethrough with no_gfm', async () => {
    const result = await test.reader.read(web.url('/blog/article.html'), readOptions({ noGfm: true }));
    assert.doesNotMatch(result.content, /\| --- \|/);
    assert.doesNotMatch(result.content, /~struck~/);
    assert.match(result.content, /Planet/);
  });

  it('writes plain text with return_format text', async () => {
    const result = await test.reader.read(web.url('/blog/article.html'), readOptions({ returnFormat: 'text' }));
    assert.match(result.content, /^This article links a relative page, a parent page, a root page and its own notes\. It has bold and struck words\.\n\n/);
    assert.match(result.content, /\n\nA table\n\nPlanet/);
    assert.match(result.content, /An inline dot: ends here\./);
    assert.match(result.content, /Planet\tMoons\nEarth\t1\nMars\t2/);
    assert.match(result.content, /print\("indented"\)\n {4}print\("kept"\)/);
    assert.match(result.content, /- First item\n- Second item/);
    assert.doesNotMatch(result.content, /[#*[\]]|```/);
  });

  it('resolves relative URLs against <base href>', async () => {
    const result = await test.reader.read(web.url('/base/page.html'), readOptions());
    assert.ok(result.content.includes(`[Intro](${base('/docs/v2/intro.html')})`));
    assert.ok(result.content.includes(`![Pic A](${base('/docs/v2/pics/a.png')})`));
  });

  it('resolves against the final URL after redirects, and reports the URL as requested', async () => {
    const result = await test.reader.read(web.url('/redirect/chain/2'), readOptions());
    assert.equal(result.url, web.url('/redirect/chain/2'));
    assert.ok(result.content.includes(`[a relative page](${base('/blog/other/page.html')})`));
  });

  it('reads a gzip-encoded page', async () => {
    const result = await test.reader.read(web.url('/gzip/article.html'), readOptions());
    assert.match(result.content, /Paragraph 4 of the article\./);
  });
});
