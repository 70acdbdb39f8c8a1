import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { readSettings } from '../../src/core/config/settings.ts';
import { ApiError } from '../../src/core/errors/api-error.ts';
import type { TaskHandler, TaskRecord } from '../../src/core/tasks/task.ts';
import { openPlatform, type Platform } from '../../src/platform/open-platform.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { databaseTargets } from '../helpers/test-databases.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { fastTuning } from '../tasks/task-test-kit.ts';
import { startGatedChatEngine, type GatedChatEngine } from './gated-chat-engine.ts';

const user = [{ role: 'user', content: 'Hello' }];
const idOf = (key: string) => key.split('.')[0] ?? '';

async function waitFor<Value>(read: () => Promise<Value>, done: (value: Value) => boolean, what: string): Promise<Value> {
  const until = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) assert.fail(`${what}: still ${JSON.stringify(value)} after 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('prepaid credit on sync calls', () => {
  let engine: GatedChatEngine;
  let test: TestPlatform;
  before(async () => {
    engine = await startGatedChatEngine();
    test = await startTestPlatform({
      config: { models: { 'glm-4.7': { backend: 'openai-compatible', baseUrl: engine.baseUrl, upstreamModel: 'fake/model' } } },
    });
  });
  after(async () => {
    await test.close();
    await engine.close();
  });

  const call = (key: string) => postJson({ ...test, authorization: `Bearer ${key}` }, '/paas/v4/chat/completions', { model: 'glm-4.7', messages: user });

  it('charges a completed chat call its perCall price plus its tokens at the key prices', async () => {
    // 10 prompt tokens x 2 + 5 completion tokens x 4.5 = 42.5 -> 43 (rounded up), plus 100 per call.
    const prices = { 'glm-4.7': { perCall: 100, perPromptToken: 2, perCompletionToken: 4.5 } };
    const { key } = await test.platform.keyAdmin.create({ policy: { credit: { balance: 1000, prices } } });
    assert.equal((await call(key)).statusCode, 200);
    await waitFor(
      () => test.platform.credits.balance(idOf(key)),
      (balance) => balance === 1000 - 100 - 43,
      'the balance after one call',
    );
    const view = await test.platform.keyAdmin.get(idOf(key));
    assert.equal(view?.policy?.credit?.balance, 857);
  });

  it('refuses calls with 1113 and x-should-retry: false once the balance is spent; a top-up lets them through', async () => {
    const { key } = await test.platform.keyAdmin.create({ policy: { credit: { balance: 150, prices: { 'glm-4.7': { perCall: 100 } } } } });
    assert.equal((await call(key)).statusCode, 200);
    assert.equal((await call(key)).statusCode, 200, 'a balance of 50 is still above zero');
    await waitFor(
      () => test.platform.credits.balance(idOf(key)),
      (balance) => balance === -50,
      'the balance below zero',
    );
    const refused = await call(key);
    assertPlatformError(refused, { status: 429, code: '1113', mentions: ['recharge'] });
    assert.equal(refused.headers['x-should-retry'], 'false');
    const received = engine.received();
    await test.platform.keyAdmin.updatePolicy(idOf(key), { credit: { balance: 500, prices: { 'glm-4.7': { perCall: 100 } } } });
    assert.equal((await call(key)).statusCode, 200);
    assert.equal(engine.received(), received + 1);
  });

  it('a model without a price is free but still needs a positive balance', async () => {
    const { key } = await test.platform.keyAdmin.create({ policy: { credit: { balance: 0, prices: {} } } });
    assertPlatformError(await call(key), { status: 429, code: '1113' });
  });
});

/** Tasks whose request says how they end. */
const handlers: TaskHandler[] = ['image', 'video'].map((kind) => ({
  kind,
  async run(task: TaskRecord) {
    if ((task.request as { behaviour?: string }).behaviour === 'fail') throw new ApiError('1301', 'The prompt was refused.');
    return kind === 'image' ? { images: [] } : { videos: [] };
  },
}));

/**
 * Two nodes on PostgreSQL. SQLite is the single-node store: one platform plays both nodes (two
 * SQLite connections in one thread would block each other's transactions, unlike two processes).
 */
for (const target of databaseTargets) {
  describe(`credit held by async work (${target.name}, ${target.name === 'postgres' ? 'two nodes' : 'one node'})`, () => {
    let sharedDir: string;
    let databaseUrl: string | undefined;
    let nodes: Platform[] = [];
    let key = '';
    before(async () => {
      sharedDir = mkdtempSync(join(tmpdir(), 'model-platform-credit-'));
      databaseUrl = await target.create();
      const masterKey = randomBytes(32).toString('hex');
      for (const index of target.name === 'postgres' ? [0, 1] : [0]) {
        const environment: NodeJS.ProcessEnv = {
          MODEL_PLATFORM_DATA_DIR: databaseUrl === undefined ? sharedDir : join(sharedDir, `node-${index}`),
          MODEL_PLATFORM_MASTER_KEY: masterKey,
          ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
        };
        nodes.push(await openPlatform(readSettings(environment), environment, { taskHandlers: handlers, taskTuning: fastTuning }));
      }
      nodes[0]?.tasks.start();
      if (nodes.length === 1) nodes.push(first());
      const prices = { 'glm-image': { perCall: 10, perImage: 90 }, 'cogvideox-3': { perVideo: 600 } };
      key = (await first().keyAdmin.create({ policy: { credit: { balance: 1000, prices } } })).key;
    });
    after(async () => {
      for (const node of new Set(nodes)) await node.close();
      nodes = [];
      await target.drop(databaseUrl);
      rmSync(sharedDir, { recursive: true, force: true });
    });
    const first = () => nodes[0] as Platform;
    const second = () => nodes[1] as Platform;
    const submit = (node: Platform, kind: 'image' | 'video', behaviour: string) =>
      node.tasks.submit({
        kind,
        ownerKeyId: idOf(key),
        model: kind === 'image' ? 'glm-image' : 'cogvideox-3',
        requestId: `credit-${behaviour}`,
        request: { behaviour },
      });
    const balance = async () => first().credits.balance(idOf(key));
    const taskCount = async () =>
      Number(
        (
          await first()
            .database.db.selectFrom('tasks')
            .select((builder) => builder.fn.countAll<number>().as('total'))
            .where('owner_key_id', '=', idOf(key))
            .executeTakeFirstOrThrow()
        ).total,
      );
    const ended = (id: string) =>
      waitFor(
        () => first().tasks.get(id, idOf(key)),
        (task) => task?.status !== 'PROCESSING',
        `task ${id}`,
      );
    /** Both nodes reconcile at once, three times: what they settle and release together. */
    const reconcileEverywhere = async () => {
      const rounds = await Promise.all([0, 1, 2].flatMap(() => [first().credits.reconcile(Date.now()), second().credits.reconcile(Date.now())]));
      return rounds.reduce((total, round) => ({ settled: total.settled + round.settled, released: total.released + round.released }), {
        settled: 0,
        released: 0,
      });
    };

    it('holds the price on submit, at the prices of that moment, and settles it once on SUCCESS', async () => {
      const task = await submit(second(), 'image', 'succeed');
      assert.equal(await balance(), 900, 'perCall 10 + perImage 90 held at once');
      assert.equal((await first().keyAdmin.get(idOf(key)))?.creditHeld, 100);
      // A price change after submission does not touch the work already submitted.
      await first().keyAdmin.updatePolicy(idOf(key), { credit: { prices: { 'glm-image': { perCall: 10, perImage: 490 }, 'cogvideox-3': { perVideo: 600 } } } });
      assert.equal((await ended(task.id))?.status, 'SUCCESS');
      assert.deepEqual(await reconcileEverywhere(), { settled: 1, released: 0 }, 'settled exactly once across nodes');
      assert.equal(await balance(), 900);
      assert.equal((await first().keyAdmin.get(idOf(key)))?.creditHeld, 0);
    });

    it('releases the hold once on FAIL: the balance is whole again', async () => {
      const task = await submit(first(), 'image', 'fail');
      assert.equal(await balance(), 400, 'the new price (500) is held for new work');
      assert.equal((await ended(task.id))?.status, 'FAIL');
      assert.deepEqual(await reconcileEverywhere(), { settled: 0, released: 1 });
      assert.equal(await balance(), 900);
    });

    it('refuses work the balance cannot cover with 1113, and submits nothing', async () => {
      const video = await submit(second(), 'video', 'succeed');
      assert.equal(await balance(), 300, 'perVideo 600 held');
      const tasksBefore = await taskCount();
      await assert.rejects(
        submit(first(), 'video', 'succeed'),
        (error: unknown) => error instanceof ApiError && error.code === '1113' && /balance 300 does not cover the 600/.test(error.message),
      );
      assert.equal(await balance(), 300, 'a refused submission holds nothing');
      assert.equal(await taskCount(), tasksBefore, 'and queues no task');
      await ended(video.id);
      assert.deepEqual(await reconcileEverywhere(), { settled: 1, released: 0 });
      assert.equal(await balance(), 300);
    });
  });
}
