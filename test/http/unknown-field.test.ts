import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

describe('a field the schema does not know', () => {
  let test: TestPlatform;
  let admin: string;
  before(async () => {
    test = await startTestPlatform();
    admin = `Bearer ${(await test.platform.keyAdmin.create({ name: 'ops', policy: { scope: 'admin' } })).key}`;
  });
  after(() => test.close());

  const createKey = (body: unknown) =>
    test.app.inject({
      method: 'POST',
      url: '/admin/keys',
      headers: { authorization: admin, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });

  it('is named with its path', async () => {
    const nested = await createKey({ name: 'team-a', policy: { requestsPerMinute: 60, foo: 1 } });
    assertPlatformError(nested, { status: 400, code: '1214', mentions: ["'policy.foo'", 'not a known field'] });
    assert.ok(!nested.body.includes('must NOT have additional properties'), nested.body);
  });

  it('is quoted and cut short when the caller sends a long name', async () => {
    const answer = await createKey({ name: 'team-a', policy: { ['x'.repeat(5000)]: 1 } });
    assertPlatformError(answer, { status: 400, code: '1214', mentions: ['not a known field'] });
    assert.ok(answer.body.length < 1000, `${answer.body.length} bytes`);
  });
});
