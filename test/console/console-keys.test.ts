import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { consolePages, ensureConsoleBuilt, launchBrowser, openWatchedPage, signIn, viewports, visit } from '../helpers/console-browser.ts';
import { TaskRepository } from '../../src/store/task-repository.ts';
import { renderPagePng } from '../helpers/rendered-documents.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

/** Tasks for the Tasks page: an image that succeeded (its picture in the blob store) and a video that failed. */
async function seedTasks(test: TestPlatform): Promise<void> {
  const png = await renderPagePng({ width: 256, height: 256, items: [{ rect: { x: 32, y: 32, width: 192, height: 192 }, fill: '#1c7ed6' }] });
  await test.platform.blobs.put('images/console-test.png', png, 'image/png');
  const tasks = new TaskRepository(test.platform.database);
  const keyId = test.key.split('.')[0] ?? '';
  const now = Date.now();
  for (const [id, kind] of [
    ['image-task', 'image'],
    ['video-task', 'video'],
  ] as const) {
    await tasks.insert({
      id,
      kind,
      ownerKeyId: keyId,
      model: kind === 'image' ? 'cogview-4' : 'vidu2',
      requestId: id,
      request: {},
      createdAt: now,
      deadlineAt: now + 600_000,
    });
    await tasks.claim(id, 'worker', now + 60_000, now, 3);
  }
  await tasks.complete({ id: 'image-task', leaseOwner: 'worker', attempt: 1 }, { images: [{ key: 'images/console-test.png' }] }, now);
  await tasks.fail(
    { id: 'video-task', leaseOwner: 'worker', attempt: 1 },
    { code: '1230', message: 'The task timed out: it did not finish before its deadline.' },
    now,
  );
}

// The model-files listing is optional: a server without model downloads answers 404, shown as an empty state.
const optionalModelFiles = { path: /^\/admin\/model-files$/, status: 404 };

describe('operator console: an admin manages keys in the browser', () => {
  let test: TestPlatform;
  let browser: Browser;
  let baseUrl: string;
  let adminKey: string;
  before(async () => {
    ensureConsoleBuilt();
    test = await startTestPlatform();
    adminKey = (await test.platform.keyAdmin.create({ name: 'ops', policy: { scope: 'admin' } })).key;
    await seedTasks(test);
    baseUrl = await test.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await test?.close();
  });

  const callWith = (key: string) => fetch(`${baseUrl}/paas/v4/models`, { headers: { authorization: `Bearer ${key}` } });

  it('creates a key, sets a rate limit the API then enforces, shows the API refusing a wrong value, and revokes the key', async () => {
    const watched = await openWatchedPage(browser, baseUrl);
    const { page } = watched;
    await signIn(watched, adminKey);
    await visit(watched, 'Keys', 'Keys');

    await page.getByLabel('New key name').fill('team-a');
    await page.getByRole('button', { name: 'Create key' }).click();
    const created = (await page.getByTestId('created-key').textContent())?.trim() ?? '';
    assert.match(created, /^[0-9a-f]{32}\.[A-Za-z0-9]{16}$/, 'the new secret is shown once');
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByTestId('created-key').waitFor({ state: 'hidden' });

    await page.getByRole('button', { name: 'Edit policy of team-a' }).click();
    await page.getByLabel('Requests per minute').fill('1');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    const stored = await test.platform.keyAdmin.get(created.split('.')[0] ?? '');
    assert.deepEqual(stored?.policy, { requestsPerMinute: 1 });
    // Three calls within a second or so: at least two fall in one calendar minute, so one is refused.
    const statuses = [];
    for (let call = 0; call < 3; call += 1) statuses.push((await callWith(created)).status);
    assert.ok(statuses.includes(429), `the API refuses calls over the limit: ${statuses.join(', ')}`);

    await page.getByRole('button', { name: 'Edit policy of team-a' }).click();
    await page.getByLabel('Requests per minute').fill('-1');
    await page.getByRole('button', { name: 'Save policy' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'requestsPerMinute' });
    await refusal.waitFor();
    assert.match((await refusal.textContent()) ?? '', /requestsPerMinute/, "the form shows the API's own message");
    await watched.screenshot('keys-policy-refused-desktop');
    await page.keyboard.press('Escape');

    await page.getByRole('button', { name: 'Revoke team-a' }).click();
    await page.getByRole('button', { name: 'Revoke team-a' }).waitFor({ state: 'detached' });
    assert.equal((await callWith(created)).status, 401, 'a revoked key is refused');
    watched.assertClean([{ path: /^\/admin\/keys\/[0-9a-f]+$/, status: 400 }]);
    await page.context().close();
  });

  it('is usable from the keyboard: sign-in takes the focus, and Tab reaches the navigation in order', async () => {
    const watched = await openWatchedPage(browser, baseUrl);
    const { page } = watched;
    await page.goto('/console/');
    const field = page.getByLabel('API key');
    await field.waitFor();
    assert.equal(
      await field.evaluate((element) => element === (element.ownerDocument as unknown as { activeElement: unknown }).activeElement),
      true,
      'the key field has the focus',
    );
    await page.keyboard.type(adminKey);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    const focusOrder: string[] = [];
    for (let step = 0; step < 12 && !focusOrder.includes('Keys'); step += 1) {
      await page.keyboard.press('Tab');
      focusOrder.push((await page.evaluate('document.activeElement?.textContent?.trim() ?? ""')) as string);
    }
    assert.deepEqual(focusOrder.slice(0, 3), ['Sign out', 'Overview', 'Keys'], 'the header, then the pages in order');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Keys', level: 2 }).waitFor();
    watched.assertClean();
    await page.context().close();
  });

  for (const [size, viewport] of Object.entries(viewports)) {
    it(`shows every page at ${size} width without an error`, async () => {
      const watched = await openWatchedPage(browser, baseUrl, viewport);
      await signIn(watched, adminKey);
      for (const page of consolePages) {
        await visit(watched, page.label, page.heading);
        await watched.page.waitForLoadState('networkidle');
        // The preview is decoded before the picture is taken (the test's types know no DOM: the element's decode, by name).
        if (page.file === 'tasks')
          await watched.page
            .getByRole('img', { name: 'Image of task image-task' })
            .evaluate((image) => (image as unknown as { decode(): Promise<void> }).decode());
        await watched.screenshot(`${page.file}-${size}`);
        await watched.assertFitsWidth();
      }
      watched.assertClean([optionalModelFiles]);
      await watched.page.context().close();
    });
  }
});
