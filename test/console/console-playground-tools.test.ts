import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { answer } from '../agents/translation/translation-fixtures.ts';
import { chooseOption, ensureConsoleBuilt, launchBrowser, openWatchedPage, signIn, visit, type WatchedPage } from '../helpers/console-browser.ts';
import { startFakeOpenAiImagesServer, type FakeOpenAiImagesServer } from '../helpers/fake-openai-images-server.ts';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { startFakeOpenAiTranscriptionServer, type FakeOpenAiTranscriptionServer } from '../helpers/fake-openai-transcription-server.ts';
import { startFakeWeb, type FakeWeb } from '../helpers/fake-web.ts';
import { samplePng } from '../helpers/media-samples.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

const spoken = 'hello from the console';

/**
 * The playground's other tabs against the engines their API tests use, each on loopback: the
 * reader on the fake web (allowed by `fetch.allow`), web search on the local index, translation
 * through the agent on a fake chat engine, transcription of espeak-ng speech on an OpenAI-style
 * transcription engine, and image generation on an OpenAI-style image engine.
 */
describe('operator console: the playground tools', () => {
  let web: FakeWeb;
  let chat: FakeOpenAiServer;
  let transcriber: FakeOpenAiTranscriptionServer;
  let painter: FakeOpenAiImagesServer;
  let test: TestPlatform;
  let browser: Browser;
  let baseUrl: string;
  let watched: WatchedPage;
  let folder: string;
  before(async () => {
    ensureConsoleBuilt();
    folder = mkdtempSync(join(tmpdir(), 'console-tools-'));
    [web, chat, transcriber, painter] = await Promise.all([
      startFakeWeb(),
      startFakeOpenAiServer(),
      startFakeOpenAiTranscriptionServer(spoken),
      startFakeOpenAiImagesServer(),
    ]);
    test = await startTestPlatform({
      config: {
        fetch: { allow: ['127.0.0.1'] },
        models: {
          'glm-4.7': { backend: 'openai-compatible', baseUrl: chat.baseUrl, upstreamModel: 'zai-org/GLM' },
          'my-asr': { backend: 'openai-transcription', baseUrl: transcriber.baseUrl, upstreamModel: 'whisper-small' },
          'my-painter': { backend: 'openai-images', baseUrl: painter.baseUrl, upstreamModel: 'dall-e-3' },
        },
        agents: { general_translation: { model: 'glm-4.7' } },
      },
    });
    const adminKey = (await test.platform.keyAdmin.create({ name: 'ops', policy: { scope: 'admin' } })).key;
    baseUrl = await test.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
    // One signed-in page for every tab: the tests are about the tabs, and a sign-in each would only add time.
    watched = await openWatchedPage(browser, baseUrl);
    await signIn(watched, adminKey);
    await visit(watched, 'Playground', 'Playground');
  });
  after(async () => {
    await browser?.close();
    await test?.close();
    await Promise.all([web?.close(), chat?.close(), transcriber?.close(), painter?.close()]);
    rmSync(folder, { recursive: true, force: true });
  });

  /** The playground's `tab` on the signed-in page; the test's body runs on it, then the page must still be clean. */
  async function onTab(tab: string, screenshot: string, body: (page: Page) => Promise<void>): Promise<void> {
    await watched.page.getByRole('tab', { name: tab }).click();
    await body(watched.page);
    await watched.screenshot(screenshot);
    watched.assertClean();
  }

  it('reads a page into Markdown', async () => {
    await onTab('Reader', 'playground-reader-desktop', async (page) => {
      await page.getByLabel('URL').fill(web.url('/blog/article.html'));
      await page.getByRole('button', { name: 'Read' }).click();
      await page.getByRole('heading', { name: 'Reading the Fake Web', level: 4 }).waitFor();
      assert.match((await page.getByTestId('reader-content').textContent()) ?? '', /\| Planet \| Moons \|/);
      assert.equal(web.hits('/blog/article.html'), 1);
    });
  });

  it('searches the local index and links each result', async () => {
    await test.platform.searchIndex.upsertMany([
      {
        url: 'https://www.polar.example/moraine',
        title: 'Moraines',
        content: 'A moraine is rock a glacier left behind.',
        description: '',
        siteName: 'Polar Example',
        icon: '',
        publishedAt: Date.UTC(2024, 1, 29),
        indexedAt: Date.now(),
      },
    ]);
    await onTab('Web search', 'playground-search-desktop', async (page) => {
      await page.getByLabel('Query').fill('moraine glacier');
      await page.getByRole('button', { name: 'Search' }).click();
      const link = page.getByRole('link', { name: 'Moraines' });
      await link.waitFor();
      assert.equal(await link.getAttribute('href'), 'https://www.polar.example/moraine');
      await page.getByText('A moraine is rock a glacier left behind.').waitFor();
    });
  });

  it('translates through the general_translation agent', async () => {
    chat.enqueue(answer('Guten Morgen, Welt!'));
    await onTab('Translation', 'playground-translation-desktop', async (page) => {
      await page.getByLabel(/^Text/).fill('Good morning, world!');
      await chooseOption(page, 'Into', 'de');
      await page.getByRole('button', { name: 'Translate' }).click();
      await page.getByTestId('translation').waitFor();
      assert.equal(await page.getByTestId('translation').textContent(), 'Guten Morgen, Welt!');
    });
    assert.equal(chat.requests.length, 1);
    assert.match(JSON.stringify(chat.requests[0]?.body['messages']), /Good morning, world!/);
  });

  it('transcribes an uploaded recording', async () => {
    const speech = join(folder, 'speech.wav');
    await promisify(execFile)('espeak-ng', ['-w', speech, spoken]);
    await onTab('Transcription', 'playground-transcription-desktop', async (page) => {
      await chooseOption(page, 'Model', 'my-asr');
      await page.locator('input[type="file"]').setInputFiles(speech);
      await page.getByRole('button', { name: 'Transcribe' }).click();
      await page.getByText(spoken, { exact: true }).waitFor();
    });
    assert.equal(transcriber.received.length, 1);
    assert.deepEqual(transcriber.received[0]?.fields['model'], ['whisper-small']);
  });

  it('generates an image and shows it', async () => {
    painter.reply({ kind: 'b64', images: [await samplePng(40, 30)] });
    await onTab('Images', 'playground-images-desktop', async (page) => {
      await chooseOption(page, 'Model', 'my-painter');
      await page.getByLabel('Prompt').fill('a red fox');
      await page.getByRole('button', { name: 'Generate' }).click();
      const image = page.getByRole('img', { name: 'Generated: a red fox' });
      await image.waitFor();
      // Decoded: the picture came back from the platform's signed link (a failed load would be a failed request).
      await image.evaluate((element) => (element as unknown as { decode(): Promise<void> }).decode());
      assert.equal(await image.evaluate((element) => (element as unknown as { naturalWidth: number }).naturalWidth), 40);
    });
    assert.equal(painter.requests[0]?.body['prompt'], 'a red fox');
  });
});
