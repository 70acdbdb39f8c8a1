import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { reportSkippedPostgres } from '../helpers/test-databases.ts';
import { isRedisInstalled, startRedis, type RedisServer } from '../tasks/task-test-kit.ts';
import { startGatedChatEngine, type GatedChatEngine } from './gated-chat-engine.ts';
import { startTwoNodes, type TwoNodes } from './two-node-kit.ts';

/**
 * A deployment's maxConcurrency across two platform nodes sharing one Redis: calls beyond the limit
 * wait (they are not refused) on whichever node they arrive, and reach the engine as slots free.
 */
describe('deployment maxConcurrency across two nodes and one Redis', { skip: isRedisInstalled() ? false : 'redis-server is not installed' }, () => {
  let redis: RedisServer | undefined;
  let engine: GatedChatEngine;
  let fleet: TwoNodes;
  before(async () => {
    reportSkippedPostgres();
    redis = await startRedis();
    engine = await startGatedChatEngine();
    fleet = await startTwoNodes({
      redisUrl: redis?.url ?? '',
      config: { models: { 'glm-4.7': { backend: 'openai-compatible', baseUrl: engine.baseUrl, upstreamModel: 'fake/model', maxConcurrency: 2 } } },
    });
  });
  after(async () => {
    engine.release();
    await fleet.close();
    await engine.close();
    await redis?.stop();
  });

  it('holds two calls at the engine across both nodes; the others wait and go on as streams end', async () => {
    const key = await fleet.createKey({});
    const stream = (index: number) =>
      fetch(`${(fleet.nodes[index % 2] ?? fleet.nodes[0]).baseUrl}/paas/v4/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'glm-4.7', messages: [{ role: 'user', content: 'Hello' }], stream: true }),
      });
    const before = engine.received();
    const first = await Promise.all([stream(0), stream(1)]);
    assert.deepEqual(
      first.map((response) => response.status),
      [200, 200],
    );
    // Two more, one on each node: the deployment's two slots are held, so neither reaches the engine.
    const waiting = [stream(0), stream(1)];
    await sleep(500);
    assert.equal(engine.received() - before, 2, 'no third call at the engine while two streams hold the slots');

    engine.release();
    for (const response of first) assert.match(await response.text(), /data: \[DONE\]\n\n$/);
    const until = Date.now() + 30_000;
    while (engine.received() - before < 4 && Date.now() < until) await sleep(20);
    assert.equal(engine.received() - before, 4, 'the waiting calls reached the engine once the slots were free');
    engine.release();
    for (const response of await Promise.all(waiting)) {
      assert.equal(response.status, 200);
      assert.match(await response.text(), /data: \[DONE\]\n\n$/);
    }
  });
});
