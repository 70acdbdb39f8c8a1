import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, startServer } from '../helpers/cli-process.ts';

const keyPattern = /\b([0-9a-f]{32}\.[A-Za-z0-9]{16})\b/;

async function chatStatus(baseUrl: string, key: string): Promise<{ status: number; code: string }> {
  const response = await fetch(`${baseUrl}/paas/v4/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: '{}',
  });
  const body = (await response.json()) as { error: { code: string } };
  return { status: response.status, code: body.error.code };
}

describe('model-platform CLI', () => {
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'model-platform-cli-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('first start creates a key and prints it once; the key works; a second start prints none', async () => {
    const environment = { MODEL_PLATFORM_DATA_DIR: join(dataDir, 'first') };
    const first = await startServer(environment);
    const key = keyPattern.exec(first.output())?.[1];
    assert.ok(key !== undefined, first.output());
    assert.deepEqual(await chatStatus(first.baseUrl, key), { status: 400, code: '1213' });
    assert.equal(await first.stop(), 0);
    const second = await startServer(environment);
    assert.ok(!keyPattern.test(second.output()), 'no key printed on the second start');
    assert.deepEqual(await chatStatus(second.baseUrl, key), { status: 400, code: '1213' });
    assert.equal(await second.stop(), 0);
  });

  it('MODEL_PLATFORM_BOOTSTRAP_KEY creates that key; keys create, list and revoke manage keys', async () => {
    const bootstrap = 'abcdefabcdefabcdefabcdefabcdef12.BootstrapSecret1';
    const environment = { MODEL_PLATFORM_DATA_DIR: join(dataDir, 'bootstrap'), MODEL_PLATFORM_BOOTSTRAP_KEY: bootstrap };
    const server = await startServer(environment);
    try {
      assert.ok(!server.output().includes('BootstrapSecret1'), 'the bootstrap secret is not printed');
      assert.deepEqual(await chatStatus(server.baseUrl, bootstrap), { status: 400, code: '1213' });

      const created = await runCli(['keys', 'create', '--name', 'ci'], environment);
      assert.equal(created.code, 0, created.stderr);
      const key = keyPattern.exec(created.stdout)?.[1];
      assert.ok(key !== undefined, created.stdout);
      assert.deepEqual(await chatStatus(server.baseUrl, key), { status: 400, code: '1213' });

      const listed = await runCli(['keys', 'list'], environment);
      assert.equal(listed.code, 0, listed.stderr);
      const id = key.split('.')[0] ?? '';
      assert.match(listed.stdout, new RegExp(`${id} .* active {2,}ci`));
      assert.match(listed.stdout, /abcdefabcdefabcdefabcdefabcdef12 .* active {2,}bootstrap/);
      assert.ok(!listed.stdout.includes(key.split('.')[1] ?? '-'), 'list never shows secrets');

      const revoked = await runCli(['keys', 'revoke', id], environment);
      assert.equal(revoked.code, 0, revoked.stderr);
      // Another process revoked it: the server's auth cache lets it through for at most one second.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      assert.deepEqual(await chatStatus(server.baseUrl, key), { status: 401, code: '1000' });
      assert.equal((await runCli(['keys', 'revoke', id], environment)).code, 1);
    } finally {
      await server.stop();
    }
  });

  it('config check accepts a valid file and names the bad key of an invalid one; serve refuses it', async () => {
    const good = join(dataDir, 'good.yaml');
    writeFileSync(good, 'models:\n  glm-4.7: { backend: openai-compatible, baseUrl: "http://127.0.0.1:9/v1" }\n');
    const valid = await runCli(['config', 'check', '--config', good], {});
    assert.equal(valid.code, 0, valid.stderr);
    assert.match(valid.stdout, /glm-4\.7 -> openai-compatible/);

    const bad = join(dataDir, 'bad.yaml');
    writeFileSync(bad, 'models:\n  glm-4.7: { backend: openai-compatible, baseurl: "http://x" }\n');
    const invalid = await runCli(['config', 'check'], { MODEL_PLATFORM_CONFIG: bad });
    assert.equal(invalid.code, 1);
    assert.match(invalid.stderr, /models\.glm-4\.7\.baseurl/);

    const serve = await runCli(['serve', '--config', bad], { MODEL_PLATFORM_DATA_DIR: join(dataDir, 'bad'), PORT: '0' });
    assert.equal(serve.code, 1);
    assert.match(serve.stderr, /Configuration error: .*models\.glm-4\.7\.baseurl/);
  });

  it('migrate reports the schema up to date', async () => {
    const result = await runCli(['migrate'], { MODEL_PLATFORM_DATA_DIR: join(dataDir, 'migrate') });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /up to date \(SQLite/);
  });

  it('shuts down gracefully: a request in flight at SIGTERM still gets its answer', async () => {
    const bootstrap = 'abcdefabcdefabcdefabcdefabcdef34.GracefulSecret12';
    const server = await startServer({ MODEL_PLATFORM_DATA_DIR: join(dataDir, 'graceful'), MODEL_PLATFORM_BOOTSTRAP_KEY: bootstrap });
    const body = JSON.stringify({ model: 'glm-4.7', messages: [{ role: 'user', content: 'hi' }] });
    const answer = new Promise<{ status: number | undefined; body: string }>((resolve, reject) => {
      const outgoing = request(`${server.baseUrl}/paas/v4/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bootstrap}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      });
      outgoing.on('response', (incoming) => {
        let text = '';
        incoming.on('data', (chunk: Buffer) => (text += chunk.toString()));
        incoming.on('end', () => resolve({ status: incoming.statusCode, body: text }));
      });
      outgoing.on('error', reject);
      // Half the body now, the rest after the signal: the request is in flight during shutdown.
      outgoing.write(body.slice(0, 10));
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(() => outgoing.end(body.slice(10)), 300);
      }, 200);
    });
    const result = await answer;
    assert.equal(result.status, 400);
    assert.match(result.body, /"code":"1221"/);
    assert.equal(await server.exited, 0);
  });
});
