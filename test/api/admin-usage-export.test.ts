import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { utcDay } from '../../src/store/usage/usage-day.ts';
import { runCli } from '../helpers/cli-process.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

describe('GET /admin/usage/export: the usage report as the CLI writes it', () => {
  let test: TestPlatform;
  let admin: string;
  before(async () => {
    test = await startTestPlatform();
    admin = `Bearer ${(await test.platform.keyAdmin.create({ name: 'ops, "east"', policy: { scope: 'admin' } })).key}`;
    const keyId = test.key.split('.')[0] ?? '';
    const now = Date.now();
    const record = (model: string, endpoint: string, promptTokens: number, createdAt: number) =>
      test.platform.usage.record({ keyId, model, endpoint, requestId: `r-${createdAt}`, promptTokens, completionTokens: 3, cachedTokens: 0, createdAt });
    record('glm-4.7', 'chat.completions', 10, now);
    record('glm-4.7', 'chat.completions', 20, now - 86_400_000);
    record('glm-ocr', 'layout_parsing', 0, now);
    await test.platform.usage.flush();
  });
  after(() => test.close());

  const exported = (query: string, authorization = admin) => test.app.inject({ url: `/admin/usage/export${query}`, headers: { authorization } });

  it('answers the same CSV as `usage report --format csv` for each grouping', async () => {
    const from = utcDay(Date.now() - 3 * 86_400_000);
    const to = utcDay(Date.now());
    for (const by of ['day', 'key', 'model,endpoint', 'day,key,model,endpoint']) {
      const answer = await exported(`?by=${by}&from=${from}&to=${to}`);
      assert.equal(answer.statusCode, 200, answer.body);
      assert.match(String(answer.headers['content-type']), /^text\/csv/);
      assert.match(String(answer.headers['content-disposition']), /^attachment; filename="usage-/);
      const cli = await runCli(['usage', 'report', '--by', by, '--from', from, '--to', to, '--format', 'csv'], {
        MODEL_PLATFORM_DATA_DIR: test.platform.settings.dataDir,
      });
      assert.equal(cli.code, 0, cli.stderr);
      assert.equal(answer.body, cli.stdout, by);
    }
    assert.match((await exported('?by=model')).body, /^model,calls,[^\r]*\r\nglm-4\.7,2,30,6,/m);
  });

  it('is for admin keys only, and refuses a malformed grouping or day with the field named', async () => {
    assertPlatformError(await exported('', test.authorization), { status: 434, code: '1220' });
    assertPlatformError(await exported('?by=week'), { status: 400, code: '1214', mentions: ['by'] });
    assertPlatformError(await exported('?from=2026-02-30'), { status: 400, code: '1214', mentions: ['from'] });
    assertPlatformError(await exported('?to=soon'), { status: 400, code: '1214', mentions: ['to'] });
    assertPlatformError(await exported('?from=2026-03-02&to=2026-03-01'), { status: 400, code: '1214', mentions: ['from'] });
  });
});
