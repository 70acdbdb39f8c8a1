import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readSettings } from '../../src/core/config/settings.ts';
import { openPlatform } from '../../src/platform/open-platform.ts';
import { runCli } from '../helpers/cli-process.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

const dayMs = 86_400_000;

describe('admin API: keys, policies and usage (/admin)', () => {
  let test: TestPlatform;
  let admin: string;
  before(async () => {
    test = await startTestPlatform();
    admin = `Bearer ${(await test.platform.keyAdmin.create({ name: 'ops', policy: { scope: 'admin' } })).key}`;
  });
  after(() => test.close());

  const send = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown, authorization = admin) =>
    test.app.inject({
      method,
      url,
      headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

  it('creates a key with a policy and shows the secret only in that answer', async () => {
    const policy = { models: ['glm-4.7'], requestsPerMinute: 60, quota: { period: 'day', calls: 1000 } };
    const created = await send('POST', '/admin/keys', { name: 'team-a', policy });
    assert.equal(created.statusCode, 200, created.body);
    const body = created.json() as { id: string; key: string; name: string; scope: string; policy: unknown; revoked_at: unknown };
    assert.match(body.key, /^[0-9a-f]{32}\.[A-Za-z0-9]{16}$/);
    assert.equal(body.key.split('.')[0], body.id);
    assert.deepEqual([body.name, body.scope, body.policy, body.revoked_at], ['team-a', 'user', policy, null]);
    // The new key works, under its policy.
    const call = await test.app.inject({
      method: 'POST',
      url: '/paas/v4/chat/completions',
      headers: { authorization: `Bearer ${body.key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ model: 'glm-4.6', messages: [{ role: 'user', content: 'hi' }] }),
    });
    assertPlatformError(call, { status: 434, code: '1220', mentions: ['glm-4.6'] });

    const listed = await send('GET', '/admin/keys');
    assert.equal(listed.statusCode, 200);
    assert.ok(!listed.body.includes(body.key.split('.')[1] ?? '-'), 'a listing never shows secrets');
    const entry = (listed.json() as { data: { id: string; policy: unknown }[] }).data.find((key) => key.id === body.id);
    assert.deepEqual(entry?.policy, policy);
  });

  it('replaces a policy (credit.balance sets the balance) and reads it back', async () => {
    const { id } = (await send('POST', '/admin/keys', { name: 'team-b' })).json() as { id: string };
    const policy = { concurrency: { perModel: 2, models: { 'glm-4.7': 4 } }, credit: { balance: 5_000_000, prices: { 'glm-4.7': { perCall: 1000 } } } };
    const patched = await send('PATCH', `/admin/keys/${id}`, { policy });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual((patched.json() as { policy: unknown }).policy, policy);
    assert.equal(await test.platform.credits.balance(id), 5_000_000);
    const read = (await send('GET', `/admin/keys/${id}`)).json() as { policy: { credit: { balance: number } }; credit_held: number };
    assert.equal(read.policy.credit.balance, 5_000_000);
    assert.equal(read.credit_held, 0);
    // Prices alone leave the balance as it is.
    await send('PATCH', `/admin/keys/${id}`, { policy: { credit: { prices: {} } } });
    assert.equal(await test.platform.credits.balance(id), 5_000_000);
    const cleared = await send('PATCH', `/admin/keys/${id}`, { policy: {} });
    assert.deepEqual((cleared.json() as { policy: unknown }).policy, {});
  });

  it('refuses a malformed policy and an unknown key', async () => {
    const { id } = (await send('POST', '/admin/keys', {})).json() as { id: string };
    assertPlatformError(await send('PATCH', `/admin/keys/${id}`, { policy: { requestsPerMinute: -1 } }), {
      status: 400,
      code: '1214',
      mentions: ['requestsPerMinute'],
    });
    assertPlatformError(await send('PATCH', `/admin/keys/${id}`, { policy: { quota: { period: 'week', calls: 1 } } }), {
      status: 400,
      code: '1214',
      mentions: ['period'],
    });
    assertPlatformError(await send('PATCH', `/admin/keys/${id}`, { policy: { rpm: 5 } }), { status: 400, code: '1214' });
    assertPlatformError(await send('PATCH', '/admin/keys/no-such-key', { policy: {} }), { status: 404, code: '404', mentions: ['no-such-key'] });
    assertPlatformError(await send('GET', '/admin/keys/no-such-key'), { status: 404, code: '404' });
  });

  it('revokes a key at once; revoking it again is a 404', async () => {
    const { id, key } = (await send('POST', '/admin/keys', { name: 'short-lived' })).json() as { id: string; key: string };
    const revoked = await send('DELETE', `/admin/keys/${id}`);
    assert.deepEqual(revoked.json(), { id, object: 'api_key', revoked: true });
    assertPlatformError(await send('GET', '/paas/v4/files', undefined, `Bearer ${key}`), { status: 401, code: '1000', mentions: ['revoked'] });
    assertPlatformError(await send('DELETE', `/admin/keys/${id}`), { status: 404, code: '404' });
  });

  it('reports usage by key, model and UTC day over a date range', async () => {
    const today = Date.now() - (Date.now() % dayMs);
    const record = (keyId: string, model: string, createdAt: number, promptTokens: number) => ({
      keyId,
      model,
      endpoint: 'chat.completions',
      requestId: 'usage-test',
      promptTokens,
      completionTokens: 1,
      cachedTokens: 0,
      cost: promptTokens * 1_000_001,
      createdAt,
    });
    await test.platform.ledger.insertMany([
      record('key-a', 'glm-4.7', today + 1000, 10),
      record('key-a', 'glm-4.7', today + 2000, 20),
      record('key-a', 'glm-4.6', today + 3000, 5),
      record('key-b', 'glm-4.7', today - dayMs + 5, 7),
      record('key-a', 'glm-4.7', today - 40 * dayMs, 99),
    ]);
    const day = (time: number) => new Date(time).toISOString().slice(0, 10);
    const report = await send('GET', `/admin/usage?from=${day(today - dayMs)}&to=${day(today)}`);
    assert.equal(report.statusCode, 200, report.body);
    const sums = (calls: number, promptTokens: number, spend: string) => ({
      calls,
      prompt_tokens: promptTokens,
      completion_tokens: calls,
      cached_tokens: 0,
      total_tokens: promptTokens + calls,
      spend_micros: promptTokens * 1_000_001,
      spend,
    });
    const chat = 'chat.completions';
    assert.deepEqual(report.json(), {
      object: 'list',
      currency: 'USD',
      data: [
        { date: day(today - dayMs), key_id: 'key-b', model: 'glm-4.7', endpoint: chat, ...sums(1, 7, '7.000007') },
        { date: day(today), key_id: 'key-a', model: 'glm-4.6', endpoint: chat, ...sums(1, 5, '5.000005') },
        { date: day(today), key_id: 'key-a', model: 'glm-4.7', endpoint: chat, ...sums(2, 30, '30.000030') },
      ],
      total: sums(4, 42, '42.000042'),
    });
    const filtered = await send('GET', '/admin/usage?key_id=key-a&model=glm-4.7');
    assert.deepEqual(
      (filtered.json() as { data: { calls: number }[] }).data.map((row) => row.calls),
      [2],
      'default range: the last 30 days',
    );
    assertPlatformError(await send('GET', `/admin/usage?from=${day(today)}&to=${day(today - dayMs)}`), { status: 400, code: '1214', mentions: ['from'] });
    assertPlatformError(await send('GET', '/admin/usage?from=yesterday'), { status: 400, code: '1214', mentions: ['from'] });
  });

  it('is documented in the OpenAPI document under the admin tag', async () => {
    const document = (await test.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, { tags?: string[] }>> };
    for (const [path, method] of [
      ['/admin/keys', 'post'],
      ['/admin/keys', 'get'],
      ['/admin/keys/{id}', 'patch'],
      ['/admin/keys/{id}', 'delete'],
      ['/admin/usage', 'get'],
      ['/admin/keys/{id}/top-up', 'post'],
    ] as const) {
      assert.deepEqual(document.paths[path]?.[method]?.tags, ['admin'], `${method} ${path}`);
    }
  });
});

describe('CLI keys commands run the same operations as the admin API', () => {
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'model-platform-admin-cli-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keys create --admin, keys policy and keys list', async () => {
    const environment = { MODEL_PLATFORM_DATA_DIR: dataDir };
    const created = await runCli(['keys', 'create', '--name', 'ops', '--admin', '--policy', '{"requestsPerMinute":100}'], environment);
    assert.equal(created.code, 0, created.stderr);
    const id = created.stdout.trim().split('.')[0] ?? '';
    const policy = '{"models":["glm-4.7"],"quota":{"period":"month","tokens":5000}}';
    const changed = await runCli(['keys', 'policy', id, policy], environment);
    assert.equal(changed.code, 0, changed.stderr);
    const refused = await runCli(['keys', 'policy', id, '{"quota":{"period":"year"}}'], environment);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /policy\.quota\.period/);
    const listed = await runCli(['keys', 'list'], environment);
    assert.match(listed.stdout, new RegExp(`${id} .* active {2,}ops {2,}user {2,}\\{"models":\\["glm-4.7"\\]`));

    // What the CLI wrote is what the admin API reads.
    const platform = await openPlatform(readSettings(environment), environment);
    try {
      assert.deepEqual((await platform.keyAdmin.get(id))?.policy, JSON.parse(policy));
    } finally {
      await platform.close();
    }
  });

  it('keys top-up adds whole micro-units to a key with credit, and refuses anything else', async () => {
    const environment = { MODEL_PLATFORM_DATA_DIR: dataDir };
    const created = await runCli(['keys', 'create', '--name', 'prepaid', '--policy', '{"credit":{"balance":100}}'], environment);
    assert.equal(created.code, 0, created.stderr);
    const id = created.stdout.trim().split('.')[0] ?? '';
    const added = await runCli(['keys', 'top-up', id, '5000000'], environment);
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /the balance is 5000100/);
    for (const amount of ['1.5', '-3', '0', 'ten']) {
      const refused = await runCli(['keys', 'top-up', id, amount], environment);
      assert.equal(refused.code, 2, `${amount}: ${refused.stdout}`);
      assert.match(refused.stderr, /micro-units/);
    }
    const plain = await runCli(['keys', 'create', '--name', 'no-credit'], environment);
    const refused = await runCli(['keys', 'top-up', plain.stdout.trim().split('.')[0] ?? '', '10'], environment);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /credit section/);
  });
});
