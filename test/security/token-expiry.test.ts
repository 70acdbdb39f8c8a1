import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { signPlatformJwt } from '../helpers/sign-jwt.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

/**
 * A JWT is valid only until its `exp`: a token whose expiry is missing or unreadable must not be
 * taken at all, or it would be valid for ever. A request that passes authentication answers 1213
 * (the empty body is checked after auth); one that fails answers 401.
 */
describe('JWT expiry', () => {
  let test: TestPlatform;
  let id: string;
  let secret: string;
  before(async () => {
    test = await startTestPlatform();
    [id, secret] = test.key.split('.') as [string, string];
  });
  after(() => test.close());

  function send(payload: Record<string, unknown>) {
    return test.app.inject({
      method: 'POST',
      url: '/paas/v4/chat/completions',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${signPlatformJwt({ api_key: id, ...payload }, secret)}` },
      payload: '{}',
    });
  }

  const unreadable: [string, Record<string, unknown>][] = [
    ['absent', {}],
    ['null', { exp: null }],
    ['a numeric string', { exp: String(Math.floor(Date.now() / 1000) + 600) }],
    ['a word', { exp: 'never' }],
    ['a boolean', { exp: true }],
    ['an object', { exp: { seconds: 1 } }],
    ['an array', { exp: [Date.now() + 60_000] }],
    ['beyond every accepted unit', { exp: 1e300 }],
  ];
  for (const [name, payload] of unreadable) {
    it(`refuses a token whose exp is ${name} with 1002`, async () => {
      const response = await send(payload);
      assertPlatformError(response, { status: 401, code: '1002', mentions: ['exp'] });
      assert.equal(response.headers['x-should-retry'], 'false');
    });
  }

  const units: [string, (ms: number) => number][] = [
    ['seconds', (ms) => Math.floor(ms / 1000)],
    ['milliseconds', (ms) => ms],
    ['microseconds', (ms) => ms * 1000],
  ];
  for (const [unit, from] of units) {
    it(`takes a token that expires in ten minutes, exp in ${unit}`, async () => {
      assertPlatformError(await send({ exp: from(Date.now() + 600_000) }), { status: 400, code: '1213' });
    });
    it(`refuses a token that expired an hour ago, exp in ${unit}, with 1003`, async () => {
      assertPlatformError(await send({ exp: from(Date.now() - 3_600_000) }), { status: 401, code: '1003' });
    });
  }

  it('refuses a token whose exp is zero or negative with 1003', async () => {
    assertPlatformError(await send({ exp: 0 }), { status: 401, code: '1003' });
    assertPlatformError(await send({ exp: -1 }), { status: 401, code: '1003' });
  });
});
