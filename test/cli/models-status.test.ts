import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, startServer, type ServerProcess } from '../helpers/cli-process.ts';
import { startFakeOpenAiServer, vllmCompletion, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { freePort } from '../tasks/task-test-kit.ts';

/** `models status` against a running `serve` process: it reads the node's admin API and exits 1 while a model has no deployment taking calls. */
describe('models status', () => {
  const folder = mkdtempSync(join(tmpdir(), 'models-status-'));
  const adminKey = 'ops.status-secret-0123456789';
  let engine: FakeOpenAiServer;
  let server: ServerProcess;
  let deadPort: number;
  before(async () => {
    engine = await startFakeOpenAiServer();
    engine.setDefault({ kind: 'json', body: vllmCompletion({ content: 'Hi', usage: { promptTokens: 2, completionTokens: 1 } }) });
    deadPort = await freePort();
    const config = join(folder, 'config.yaml');
    writeFileSync(
      config,
      [
        'models:',
        `  glm-4.7: { deployments: [{ name: live, backend: openai-compatible, baseUrl: "${engine.baseUrl}" }] }`,
        `  glm-gone: { backend: openai-compatible, baseUrl: "http://127.0.0.1:${deadPort}/v1" }`,
        '',
      ].join('\n'),
    );
    server = await startServer({ MODEL_PLATFORM_DATA_DIR: join(folder, 'data'), MODEL_PLATFORM_BOOTSTRAP_KEY: adminKey, MODEL_PLATFORM_CONFIG: config });
  });
  after(async () => {
    await server?.stop();
    await engine.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const status = () => runCli(['models', 'status', '--url', server.baseUrl], { MODEL_PLATFORM_ADMIN_KEY: adminKey });
  const chat = (model: string) =>
    fetch(`${server.baseUrl}/paas/v4/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello' }] }),
    });

  it('lists every deployment, not-started before the first call, and exits 0', async () => {
    const result = await status();
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trimEnd().split('\n');
    assert.match(lines[0] ?? '', /^MODEL\s+DEPLOYMENT\s+BACKEND\s+ADDRESS\s+STATE\s+IN_FLIGHT\s+FAILURES\s+RETRY_IN\s+LAST_ERROR$/);
    assert.match(lines[1] ?? '', /^glm-4\.7\s+live\s+openai-compatible\s+127\.0\.0\.1:\d+\s+not-started\s+0\s+0$/);
    assert.match(lines[2] ?? '', new RegExp(`^glm-gone\\s+glm-gone#1\\s+openai-compatible\\s+127\\.0\\.0\\.1:${deadPort}\\s+not-started`));
  });

  it('shows the dead deployment cooling down after a call failed on it, and exits 1 naming its model', async () => {
    assert.equal((await chat('glm-4.7')).status, 200);
    assert.ok((await chat('glm-gone')).status >= 500);
    const result = await status();
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stdout, /^glm-4\.7\s+live\s+openai-compatible\s+127\.0\.0\.1:\d+\s+healthy\s+0\s+0$/m);
    assert.match(
      result.stdout,
      new RegExp(
        `^glm-gone\\s+glm-gone#1\\s+openai-compatible\\s+127\\.0\\.0\\.1:${deadPort}\\s+cooling-down\\s+0\\s+[1-9]\\d*\\s+\\d+ s\\s+.*ECONNREFUSED`,
        'm',
      ),
    );
    assert.equal(result.stderr, 'No deployment takes calls: glm-gone.\n');
    assert.ok(!`${result.stdout}${result.stderr}`.includes('status-secret'));
  });

  it('says what it needs without an admin key, and when the node refuses the key', async () => {
    const noKey = await runCli(['models', 'status', '--url', server.baseUrl], {});
    assert.equal(noKey.code, 1);
    assert.match(noKey.stderr, /MODEL_PLATFORM_ADMIN_KEY/);
    const wrong = await runCli(['models', 'status', '--url', server.baseUrl], { MODEL_PLATFORM_ADMIN_KEY: 'ops.wrong-secret' });
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /HTTP 401/);
    assert.ok(!wrong.stderr.includes('wrong-secret'));
  });
});
