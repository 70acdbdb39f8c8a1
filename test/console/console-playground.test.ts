import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import type { Browser } from 'playwright-core';
import { chooseOption, ensureConsoleBuilt, launchBrowser, openWatchedPage, signIn, viewports, visit, type WatchedPage } from '../helpers/console-browser.ts';
import { sseReply, startFakeOpenAiServer, vllmChunk, vllmUsageChunk, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { runCli } from '../helpers/cli-process.ts';
import { digitalPdf, renderPagePng } from '../helpers/rendered-documents.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

// The playground's model has a price: per call and per token, decimals of micro-units as operators write them.
const price = { perCall: '100', perPromptToken: '0.5', perCompletionToken: '2.25' };
// The tokens the fake engine reports for the chat.
const reported = { promptTokens: 12, completionTokens: 7 };

/** A price decimal in hundredths of a micro-unit, read from its digits (no binary floats). */
function hundredthsOf(decimal: string): number {
  const [whole = '0', fraction = ''] = decimal.split('.');
  assert.ok(fraction.length <= 2, decimal);
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

const weatherTool = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];

describe('operator console: the playground', () => {
  let engine: FakeOpenAiServer;
  let test: TestPlatform;
  let browser: Browser;
  let baseUrl: string;
  let adminKey: string;
  let folder: string;
  before(async () => {
    ensureConsoleBuilt();
    folder = mkdtempSync(join(tmpdir(), 'console-playground-'));
    engine = await startFakeOpenAiServer();
    test = await startTestPlatform({
      config: {
        models: { 'glm-4.7': { backend: 'openai-compatible', baseUrl: engine.baseUrl, upstreamModel: 'zai-org/GLM' } },
        billing: { currency: 'EUR', prices: { 'glm-4.7': price } },
      },
    });
    adminKey = (await test.platform.keyAdmin.create({ name: 'ops', policy: { scope: 'admin' } })).key;
    baseUrl = await test.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await test?.close();
    await engine?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const overviewFigures = async (watched: WatchedPage) => {
    await visit(watched, 'Overview', 'Overview');
    const calls = watched.page.getByTestId('calls-1');
    await calls.waitFor();
    const text = (testId: string) => watched.page.getByTestId(testId).textContent();
    return {
      calls: await calls.textContent(),
      tokens: await text('tokens-1'),
      spend: await text('spend-1'),
      requests: await text('requests-hour'),
      errors: await text('errors-hour'),
      requestsMonth: await text('requests-month'),
      errorsMonth: await text('errors-month'),
    };
  };

  it('streams reasoning and text as they arrive, shows the tool call, and the overview counts the call', async () => {
    // A slow stream: each event a while after the last, so the page is seen between them.
    engine.enqueue(
      sseReply(
        [
          vllmChunk({ role: 'assistant', content: '' }),
          vllmChunk({ reasoning_content: 'The user wants ' }),
          vllmChunk({ reasoning_content: 'the weather.' }),
          vllmChunk({ content: 'Let me ' }),
          vllmChunk({ content: 'check.' }),
          vllmChunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
          vllmChunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }] }),
          vllmChunk({}, 'tool_calls'),
          vllmUsageChunk(reported),
        ],
        { delayMs: 300 },
      ),
    );
    const watched = await openWatchedPage(browser, baseUrl);
    const { page } = watched;
    await signIn(watched, adminKey);
    assert.deepEqual(await overviewFigures(watched), {
      calls: '0 calls',
      tokens: '0 tokens',
      spend: '0.000000 EUR spent',
      requests: '0 requests',
      errors: '0 errors, 0 refused',
      requestsMonth: '0 requests',
      errorsMonth: '0 errors, 0 refused',
    });

    await visit(watched, 'Playground', 'Playground');
    await chooseOption(page, 'Model', 'glm-4.7');
    await page.getByLabel(/^Message/).fill('Weather in Paris?');
    await page.getByLabel('Tools (JSON array, as the API takes them)').fill(JSON.stringify(weatherTool));
    assert.match((await page.getByTestId('curl').textContent()) ?? '', /curl http:\/\/127\.0\.0\.1:\d+\/paas\/v4\/chat\/completions[\s\S]*"get_weather"/);
    // Every state the answer passes through is recorded as the page changes (a MutationObserver, not
    // polling, so a busy host that paints late still records each streamed part as it lands).
    // (A string script: the test's TypeScript loader would add helpers the page does not have to a function.)
    await page.evaluate(`{
      const states = [];
      const read = (testId) => document.querySelector('[data-testid="' + testId + '"]')?.textContent ?? null;
      new MutationObserver(() => {
        const state = JSON.stringify([read('reasoning'), read('answer'), read('tool-call') !== null]);
        if (states.at(-1) !== state) states.push(state);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
      window.answerStates = states;
    }`);
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByTestId('finish').waitFor();
    // Seen part-way: the first reasoning fragment alone, then the first text fragment before the tool call.
    const states = ((await page.evaluate('window.answerStates')) as string[]).map((state) => JSON.parse(state) as [string | null, string | null, boolean]);
    const reasoningAlone = states.findIndex(([reasoning, answer]) => reasoning === 'The user wants ' && answer === null);
    const firstText = states.findIndex(([, answer, toolCall]) => answer === 'Let me ' && !toolCall);
    assert.ok(reasoningAlone >= 0, `the first reasoning part shown alone: ${JSON.stringify(states)}`);
    assert.ok(firstText > reasoningAlone, `then the first text part, before the tool call: ${JSON.stringify(states)}`);
    assert.equal(await page.getByTestId('reasoning').textContent(), 'The user wants the weather.');
    assert.equal(await page.getByTestId('answer').textContent(), 'Let me check.');
    assert.match((await page.getByTestId('tool-call').textContent()) ?? '', /get_weather[\s\S]*\{"city":"Paris"\}/);
    assert.match((await page.getByTestId('finish').textContent()) ?? '', /finish_reason tool_calls, 12 prompt tokens \+ 7 completion tokens/);
    await watched.screenshot('playground-chat-desktop');
    assert.equal(engine.requests.length, 1);
    assert.equal(engine.requests[0]?.body['stream'], true);

    // What the call costs: per call + per token, summed exactly and rounded up once to a whole
    // micro-unit (100 + 12 x 0.5 + 7 x 2.25 = 121.75 -> 122 micro-units, 0.000122 EUR).
    const hundredths =
      hundredthsOf(price.perCall) +
      reported.promptTokens * hundredthsOf(price.perPromptToken) +
      reported.completionTokens * hundredthsOf(price.perCompletionToken);
    const spendMicros = Math.ceil(hundredths / 100);
    const spend = `0.${String(spendMicros).padStart(6, '0')}`;
    assert.equal(spend, '0.000122');

    // The ledger and the hourly request counts are written in batches, and the call is recorded when
    // its response ends, which can come just after the page shows the last chunk: written out again
    // until the overview shows the call (for up to 15 s), then compared.
    const flushedOverview = async () => {
      await Promise.all([test.platform.usage.flush(), test.platform.requestCounts.flush()]);
      return overviewFigures(watched);
    };
    const deadline = Date.now() + 15_000;
    let figures = await flushedOverview();
    while ((figures.calls !== '1 call' || figures.requests !== '1 request') && Date.now() < deadline) {
      await delay(200);
      figures = await flushedOverview();
    }
    assert.deepEqual(figures, {
      calls: '1 call',
      tokens: '19 tokens',
      spend: `${spend} EUR spent`,
      requests: '1 request',
      errors: '0 errors, 0 refused',
      requestsMonth: '1 request',
      errorsMonth: '0 errors, 0 refused',
    });
    assert.equal(
      await page
        .getByRole('table', { name: 'Busiest models' })
        .getByRole('row', { name: /glm-4\.7/ })
        .getByRole('cell')
        .last()
        .textContent(),
      spend,
    );
    await watched.screenshot('overview-after-chat-desktop');
    // At phone width each table row becomes a card, all of it in view.
    await page.setViewportSize(viewports.phone);
    await page.getByRole('list', { name: 'Busiest models' }).waitFor();
    await watched.assertFitsWidth();
    await watched.screenshot('overview-after-chat-phone');
    await page.setViewportSize(viewports.desktop);
    // The admin API's total is the same amount.
    const usage = await fetch(`${baseUrl}/admin/usage`, { headers: { authorization: `Bearer ${adminKey}` } });
    assert.equal(usage.status, 200);
    const report = (await usage.json()) as { currency: string; total: { calls: number; spend_micros: number; spend: string } };
    assert.deepEqual(
      { currency: report.currency, calls: report.total.calls, spendMicros: report.total.spend_micros, spend: report.total.spend },
      {
        currency: 'EUR',
        calls: 1,
        spendMicros,
        spend,
      },
    );

    // The usage page's CSV is the CLI's `usage report --format csv` for the same grouping and days.
    await visit(watched, 'Usage & spend', 'Usage & spend');
    await page.getByText('Key', { exact: true }).click();
    await page.getByRole('cell', { name: adminKey.split('.')[0] ?? '-' }).waitFor();
    const from = await page.getByLabel('From (UTC day)').inputValue();
    const to = await page.getByLabel('To (UTC day)').inputValue();
    const downloaded = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const csv = readFileSync((await (await downloaded).path()) ?? '', 'utf8');
    const cli = await runCli(['usage', 'report', '--by', 'key', '--from', from, '--to', to, '--format', 'csv'], {
      MODEL_PLATFORM_DATA_DIR: test.platform.settings.dataDir,
    });
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(csv, cli.stdout);
    assert.match(csv, new RegExp(`^key_id,key_name,calls,prompt_tokens,completion_tokens,[^\\r]*\\r\\n${adminKey.split('.')[0]},ops,1,12,7,`));
    await watched.screenshot('usage-after-chat-desktop');
    watched.assertClean();
    await page.context().close();
  });

  it('runs OCR on an uploaded page and draws each element’s box over it', async () => {
    const png = await renderPagePng({
      width: 800,
      height: 500,
      items: [
        { text: 'Quarterly report', x: 60, y: 50, size: 40, bold: true },
        { text: 'Revenue grew by twelve percent in the third quarter.', x: 60, y: 160, size: 24 },
        { text: 'Costs stayed flat while the team doubled.', x: 60, y: 230, size: 24 },
      ],
    });
    const file = join(folder, 'report.png');
    writeFileSync(file, png);
    const watched = await openWatchedPage(browser, baseUrl);
    const { page } = watched;
    await signIn(watched, adminKey);
    await visit(watched, 'Playground', 'Playground');
    await page.getByRole('tab', { name: 'OCR' }).click();
    await page.locator('input[type="file"]').setInputFiles(file);
    const parsed = page.waitForResponse((response) => response.url().endsWith('/paas/v4/layout_parsing'));
    await page.getByRole('button', { name: 'Parse' }).click();
    const answer = (await (await parsed).json()) as { layout_details: { bbox_2d: number[] }[][]; md_results: string };
    assert.match(answer.md_results, /Quarterly report/);
    const elements = answer.layout_details[0] ?? [];
    assert.ok(elements.length >= 2, JSON.stringify(answer.layout_details));
    await page
      .getByTestId('ocr-box')
      .nth(elements.length - 1)
      .waitFor();
    assert.equal(await page.getByTestId('ocr-box').count(), elements.length, 'one box per element');
    // Each box lies where the element is: its corners are the element's, scaled to the shown page.
    const shown = await page.getByRole('img', { name: 'Page 1' }).boundingBox();
    const first = await page.getByTestId('ocr-box').first().boundingBox();
    const [x1 = 0, y1 = 0] = elements[0]?.bbox_2d ?? [];
    assert.ok(shown !== null && first !== null);
    assert.ok(
      Math.abs(first.x - (shown.x + x1 * shown.width)) < 3 && Math.abs(first.y - (shown.y + y1 * shown.height)) < 3,
      JSON.stringify({ shown, first, x1, y1 }),
    );
    await watched.screenshot('playground-ocr-desktop');

    // A PDF: its pages are rendered in the page (pdf.js) and the boxes drawn over each.
    const pdf = join(folder, 'report.pdf');
    writeFileSync(
      pdf,
      await digitalPdf([
        {
          width: 600,
          height: 400,
          items: [
            { text: 'Minutes of the meeting', x: 50, y: 50, size: 28 },
            { text: 'Everyone agreed.', x: 50, y: 150, size: 16 },
          ],
        },
      ]),
    );
    await page.locator('input[type="file"]').setInputFiles(pdf);
    const parsedPdf = page.waitForResponse((response) => response.url().endsWith('/paas/v4/layout_parsing'));
    await page.getByRole('button', { name: 'Parse' }).click();
    const pdfAnswer = (await (await parsedPdf).json()) as { layout_details: unknown[][] };
    const pdfElements = pdfAnswer.layout_details[0]?.length ?? 0;
    assert.ok(pdfElements >= 2, JSON.stringify(pdfAnswer.layout_details));
    await page
      .getByTestId('ocr-box')
      .nth(pdfElements - 1)
      .waitFor();
    assert.equal(await page.getByTestId('ocr-box').count(), pdfElements);
    await page.getByRole('img', { name: 'Page 1' }).evaluate((image) => (image as unknown as { decode(): Promise<void> }).decode());
    await watched.screenshot('playground-ocr-pdf-desktop');
    watched.assertClean();
    await page.context().close();
  });
});
