import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { signPlatformJwt } from '../helpers/sign-jwt.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

/** A request that passes auth answers 1213 (body checked after auth); one that fails answers 401. */
function send(test: TestPlatform, authorization: string | undefined) {
  return test.app.inject({
    method: 'POST',
    url: '/paas/v4/chat/completions',
    headers: { 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) },
    payload: '{}',
  });
}

describe('authentication matrix (docs/wire.md §5)', () => {
  let test: TestPlatform;
  let id: string;
  let secret: string;
  const now = Date.now();
  before(async () => {
    test = await startTestPlatform();
    [id, secret] = test.key.split('.') as [string, string];
  });
  after(() => test.close());

  const accepted: [string, () => string][] = [
    ['raw key with Bearer', () => `Bearer ${test.key}`],
    ['raw key without Bearer', () => test.key],
    ['raw key after a lowercase bearer and extra spaces', () => `bearer   ${test.key}  `],
    ['Bearer JWT, exp in milliseconds (Python/Java)', () => `Bearer ${signPlatformJwt({ api_key: id, exp: now + 210_000, timestamp: now }, secret)}`],
    ['bare JWT, exp in seconds (TypeScript SDK)', () => signPlatformJwt({ api_key: id, exp: Math.floor(now / 1000) + 180, timestamp: now }, secret)],
    ['bare JWT, exp in milliseconds (old Python SDK)', () => signPlatformJwt({ api_key: id, exp: now + 210_000, timestamp: now }, secret)],
    ['bare JWT, exp in microseconds (Node SDK)', () => signPlatformJwt({ api_key: id, exp: now * 1000 + 180_000, timestamp: now * 1000 }, secret)],
  ];
  for (const [name, header] of accepted) {
    it(`accepts ${name}`, async () => {
      assertPlatformError(await send(test, header()), { status: 400, code: '1213', mentions: ['model'] });
    });
  }

  const refused: [string, () => string | undefined, string][] = [
    ['no header', () => undefined, '1001'],
    ['an empty header', () => '', '1001'],
    ['Bearer with nothing after it', () => 'Bearer ', '1001'],
    ['a malformed value', () => 'Bearer not-a-key', '1002'],
    ['a value with too many dots', () => 'Bearer a.b.c.d', '1002'],
    ['a key with an empty secret', () => `Bearer ${id}.`, '1002'],
    ['a key with an empty id', () => `Bearer .${secret}`, '1002'],
    ['Basic auth', () => 'Basic dXNlcjpwYXNz', '1002'],
    ['a key with a wrong secret', () => `Bearer ${id}.WrongSecret00000`, '1000'],
    ['an unknown key id', () => 'Bearer 0123456789abcdef0123456789abcdef.AAAAAAAAAAAAAAAA', '1000'],
    ['a JWT signed with a wrong secret', () => signPlatformJwt({ api_key: id, exp: now + 60_000 }, 'wrong-secret'), '1004'],
    ['an expired JWT (seconds)', () => signPlatformJwt({ api_key: id, exp: Math.floor(now / 1000) - 3600 }, secret), '1003'],
    ['an expired JWT (milliseconds)', () => `Bearer ${signPlatformJwt({ api_key: id, exp: now - 3_600_000 }, secret)}`, '1003'],
    ['an expired JWT (microseconds)', () => signPlatformJwt({ api_key: id, exp: (now - 3_600_000) * 1000 }, secret), '1003'],
    ['a JWT for an unknown key', () => signPlatformJwt({ api_key: 'nobody', exp: now + 60_000 }, secret), '1000'],
    ['a JWT with alg none', () => signPlatformJwt({ api_key: id, exp: now + 60_000 }, secret, { alg: 'none' }), '1002'],
    ['a JWT without api_key', () => signPlatformJwt({ exp: now + 60_000 }, secret), '1002'],
  ];
  for (const [name, header, code] of refused) {
    it(`refuses ${name} with ${code}`, async () => {
      const response = await send(test, header());
      assertPlatformError(response, { status: 401, code });
      assert.equal(response.headers['x-should-retry'], 'false');
    });
  }

  it('refuses a revoked key at once, as raw key and as JWT', async () => {
    const created = await test.platform.keys.create({ name: 'to-revoke' });
    const raw = `Bearer ${created.id}.${created.secret}`;
    const jwt = signPlatformJwt({ api_key: created.id, exp: Date.now() + 60_000 }, created.secret);
    assertPlatformError(await send(test, raw), { status: 400, code: '1213' });
    assertPlatformError(await send(test, jwt), { status: 400, code: '1213' });
    assert.equal(await test.platform.revokeKey(created.id), true);
    assertPlatformError(await send(test, raw), { status: 401, code: '1000', mentions: ['revoked'] });
    assertPlatformError(await send(test, jwt), { status: 401, code: '1000', mentions: ['revoked'] });
  });

  it('leaves health, readiness, docs and the OpenAPI document open', async () => {
    for (const url of ['/healthz', '/readyz', '/openapi.json', '/docs']) {
      const response = await test.app.inject({ method: 'GET', url });
      assert.ok(response.statusCode < 400, `${url} answered ${response.statusCode}`);
    }
  });
});
