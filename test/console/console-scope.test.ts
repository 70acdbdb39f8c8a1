import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { TaskRepository } from '../../src/store/task-repository.ts';
import { consolePages, ensureConsoleBuilt, launchBrowser, openWatchedPage, signIn, viewports, visit } from '../helpers/console-browser.ts';
import { postForm } from '../helpers/multipart-form.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

const pages = consolePages.filter((page) => !page.adminOnly);

// The key probe of sign-in: a key without the admin scope is told so (that is how the page learns it).
const keyProbe = { path: /^\/admin\/keys\/[0-9a-f]+$/, status: 434 };

describe('operator console: a key without the admin scope sees only its own data', () => {
  let test: TestPlatform;
  let browser: Browser;
  let baseUrl: string;
  let holder: { id: string; key: string };
  let otherFileId: string;
  before(async () => {
    ensureConsoleBuilt();
    test = await startTestPlatform();
    const created = await test.platform.keyAdmin.create({ name: 'holder' });
    holder = { id: created.view.id, key: created.key };
    const otherKeyId = test.key.split('.')[0] ?? '';
    // The other key (the test platform's own) has a file, a task and usage; the holder a task of its own.
    const upload = await postForm(test, '/paas/v4/files', [
      ['purpose', 'user_data'],
      ['file', Buffer.from('secret notes of another team\n'), 'other-team.txt', 'text/plain'],
    ]);
    assert.equal(upload.statusCode, 200, upload.body);
    otherFileId = (upload.json() as { id: string }).id;
    const tasks = new TaskRepository(test.platform.database);
    const now = Date.now();
    const task = (id: string, ownerKeyId: string) => ({
      id,
      kind: 'image',
      ownerKeyId,
      model: 'cogview-4',
      requestId: id,
      request: {},
      createdAt: now,
      deadlineAt: now + 600_000,
    });
    await tasks.insert(task('other-task', otherKeyId));
    await tasks.insert(task('own-task', holder.id));
    test.platform.usage.record({
      keyId: otherKeyId,
      model: 'glm-4.7',
      endpoint: 'chat.completions',
      requestId: 'r1',
      promptTokens: 5,
      completionTokens: 5,
      cachedTokens: 0,
      createdAt: now,
    });
    await test.platform.usage.flush();
    baseUrl = await test.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await test?.close();
  });

  it("shows the holder's own tasks and files only; the API refuses every other key's data", async () => {
    const watched = await openWatchedPage(browser, baseUrl, viewports.desktop);
    const { page } = watched;
    const answers: { path: string; status: number; body: string }[] = [];
    page.on('response', async (response) => {
      const url = new URL(response.url());
      if (url.pathname.startsWith('/admin') || url.pathname.startsWith('/paas')) {
        answers.push({ path: url.pathname + url.search, status: response.status(), body: await response.text().catch(() => '') });
      }
    });
    await signIn(watched, holder.key);
    const navigation = page.getByRole('navigation', { name: 'Console pages' });
    assert.equal(await navigation.getByRole('link', { name: 'Keys' }).count(), 0, 'no Keys page for a key holder');
    for (const visited of pages) {
      await visit(watched, visited.label, visited.heading);
      await page.waitForLoadState('networkidle');
      await watched.screenshot(`holder-${visited.file}-desktop`);
    }

    // What the page was answered: the holder's rows only.
    const taskAnswers = answers.filter((answer) => answer.path.startsWith('/admin/tasks'));
    assert.ok(taskAnswers.length > 0);
    for (const answer of taskAnswers) {
      assert.equal(answer.status, 200);
      assert.deepEqual(
        (JSON.parse(answer.body) as { data: { id: string; key_id: string }[] }).data.map((task) => [task.id, task.key_id]),
        [['own-task', holder.id]],
      );
    }
    const fileAnswers = answers.filter((answer) => answer.path.startsWith('/paas/v4/files'));
    assert.ok(fileAnswers.length > 0 && fileAnswers.every((answer) => answer.status === 200 && !answer.body.includes(otherFileId)));
    const usageAnswers = answers.filter((each) => each.path.startsWith('/admin/usage'));
    assert.ok(usageAnswers.length > 0);
    for (const answer of usageAnswers) {
      assert.equal(answer.status, 200);
      assert.ok(
        (JSON.parse(answer.body) as { data: { key_id: string }[] }).data.every((row) => row.key_id === holder.id),
        answer.body,
      );
    }
    assert.ok(!answers.some((answer) => /^\/admin\/(keys|deployments|knowledge|model-files)(\?|$)/.test(answer.path)), 'the page asks no admin-only listing');

    // The server decides, not the page: the same key asking directly is refused.
    const otherKeyId = test.key.split('.')[0] ?? '';
    const direct = await page.evaluate(
      async ({ key, paths }) =>
        Promise.all(paths.map(async (path) => [path, (await fetch(path, { headers: { authorization: `Bearer ${key}` } })).status] as const)),
      {
        key: holder.key,
        paths: [
          '/admin/keys',
          `/admin/tasks?key_id=${otherKeyId}`,
          `/admin/usage?key_id=${otherKeyId}`,
          '/admin/knowledge',
          '/admin/deployments',
          `/paas/v4/files/${otherFileId}/content`,
        ],
      },
    );
    assert.deepEqual(direct, [
      ['/admin/keys', 434],
      [`/admin/tasks?key_id=${otherKeyId}`, 403],
      [`/admin/usage?key_id=${otherKeyId}`, 403],
      ['/admin/knowledge', 434],
      ['/admin/deployments', 434],
      [`/paas/v4/files/${otherFileId}/content`, 404],
    ]);
    watched.assertClean([
      keyProbe,
      { path: /^\/admin\//, status: 434 },
      { path: /^\/admin\/(tasks|usage)\?key_id=/, status: 403 },
      { path: /^\/paas\/v4\/files\//, status: 404 },
    ]);
    await page.context().close();
  });

  it('is readable at phone width', async () => {
    const watched = await openWatchedPage(browser, baseUrl, viewports.phone);
    await signIn(watched, holder.key);
    for (const visited of pages) {
      await visit(watched, visited.label, visited.heading);
      await watched.page.waitForLoadState('networkidle');
      await watched.screenshot(`holder-${visited.file}-phone`);
      await watched.assertFitsWidth();
    }
    watched.assertClean([keyProbe]);
    await watched.page.context().close();
  });
});
