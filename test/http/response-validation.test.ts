import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Type, type Static } from '@sinclair/typebox';
import { responses } from '../../src/api/shared/common.schema.ts';
import { SseWriter } from '../../src/http/sse-writer.ts';
import { startTestPlatform, type CheckedTestPlatform } from '../helpers/test-platform.ts';

const Thing = Type.Object({ id: Type.String(), size: Type.Integer() });
const ThingEvent = Type.Object({ delta: Type.String() });

/** A body the route's types would refuse: what these routes send on purpose. */
const unchecked = (body: unknown) => body as Static<typeof Thing>;

/**
 * The test platforms check every answer against its route's schema: these routes answer what
 * their schemas allow, or not, and the check must tell the two apart.
 */
describe('response schema check of the test platforms', () => {
  let test: CheckedTestPlatform;

  before(async () => {
    test = await startTestPlatform();
    const options = { schema: { response: responses(Thing) }, config: { public: true } };
    test.app.get('/test/right-shape', options, async () => ({ id: 'a', size: 1 }));
    test.app.get('/test/wrong-shape', options, async () => unchecked({ id: 42 }));
    test.app.get('/test/undeclared-status', options, async (_request, reply) => reply.code(201).send({ id: 'a', size: 1 }));
    test.app.get('/test/wrong-error', options, async (_request, reply) => reply.code(400).send(unchecked({ message: 'no code' })));
    test.app.get('/test/no-schema', { config: { public: true } }, async () => ({ anything: true }));
    test.app.get('/test/stream', { ...options, config: { public: true, streamEvent: ThingEvent } }, async (request, reply) => {
      const events = new SseWriter(request, reply);
      events.open();
      await events.send({ delta: 'fine' });
      await events.send({ error: { code: '1234', message: 'an error in band is allowed' } });
      await events.send({ delta: 7 });
      await events.end();
      return reply;
    });
  });

  after(async () => {
    // The mismatches above are expected; close() would fail on them.
    test.contract.mismatches.length = 0;
    await test.close();
  });

  async function mismatchesOf(url: string) {
    test.contract.mismatches.length = 0;
    const response = await test.app.inject({ method: 'GET', url });
    return { response, mismatches: [...test.contract.mismatches] };
  }

  it('lets an answer that matches its schema through unreported', async () => {
    const { response, mismatches } = await mismatchesOf('/test/right-shape');
    assert.equal(response.statusCode, 200);
    assert.deepEqual(mismatches, []);
  });

  it('reports a body of the wrong shape, naming the route, the status and the field', async () => {
    const { response, mismatches } = await mismatchesOf('/test/wrong-shape');
    assert.deepEqual(response.json(), { id: 42 }, 'the answer itself is not changed');
    assert.equal(mismatches.length, 1);
    assert.equal(mismatches[0]?.route, 'GET /test/wrong-shape');
    assert.equal(mismatches[0]?.statusCode, 200);
    assert.match(mismatches[0]?.problem ?? '', /\/id must be string/);
    assert.match(mismatches[0]?.problem ?? '', /must have required property 'size'/);
  });

  it('reports an error body that is not the platform error body', async () => {
    const { mismatches } = await mismatchesOf('/test/wrong-error');
    assert.equal(mismatches.length, 1);
    assert.equal(mismatches[0]?.statusCode, 400);
    assert.match(mismatches[0]?.problem ?? '', /required property 'error'/);
  });

  it('reports a status the route declares no schema for', async () => {
    const { mismatches } = await mismatchesOf('/test/undeclared-status');
    assert.match(mismatches[0]?.problem ?? '', /no response schema for status 201/);
  });

  it('reports a documented route without any response schema', async () => {
    const { mismatches } = await mismatchesOf('/test/no-schema');
    assert.match(mismatches[0]?.problem ?? '', /declares no response schema/);
  });

  it('checks each stream event against the route’s event schema, allowing an error body in band', async () => {
    const { response, mismatches } = await mismatchesOf('/test/stream');
    assert.match(response.body, /data: \[DONE\]\n\n$/);
    assert.equal(mismatches.length, 1, JSON.stringify(mismatches));
    assert.equal(mismatches[0]?.part, 'stream event');
    assert.equal(mismatches[0]?.excerpt, 'data: {"delta":7}');
    assert.match(mismatches[0]?.problem ?? '', /\/delta must be string/);
  });

  it('fails the test platform’s close() with every mismatch it saw', async () => {
    const other = await startTestPlatform();
    other.app.get('/test/wrong-shape', { schema: { response: responses(Thing) }, config: { public: true } }, async () => unchecked({ id: 42 }));
    await other.app.inject({ method: 'GET', url: '/test/wrong-shape' });
    await assert.rejects(other.close(), (error: Error) => {
      assert.equal(error.name, 'AssertionError');
      assert.match(error.message, /1 answer\(s\) do not match their response schemas/);
      assert.match(error.message, /GET \/test\/wrong-shape 200 body: .*\/id must be string/);
      return true;
    });
  });
});
