import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { RedisLimiter } from '../../src/limits/redis-limiter.ts';
import { SharedDeploymentSlots } from '../../src/limits/shared-deployment-slots.ts';
import { isRedisInstalled, startRedis, type RedisServer } from '../tasks/task-test-kit.ts';

/**
 * A deployment's maxConcurrency held by two nodes (two slot sets, each on its own Redis
 * connection) against one Redis: what one node holds the other cannot take, a release on one
 * admits a waiter on the other, and a node that dies frees its slots once their lease lapses.
 */
describe('deployment slots shared through Redis', { skip: isRedisInstalled() ? false : 'redis-server is not installed' }, () => {
  let redis: RedisServer | undefined;
  const opened: { limiter: RedisLimiter; slots: SharedDeploymentSlots }[] = [];
  const logged: string[] = [];
  const node = (leaseMs = 30_000) => {
    const limiter = new RedisLimiter(redis?.url ?? '');
    const slots = new SharedDeploymentSlots(limiter, { leaseMs, log: (message) => logged.push(message) });
    opened.push({ limiter, slots });
    return slots;
  };
  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    for (const { limiter, slots } of opened) {
      await slots.close();
      await limiter.close();
    }
    await redis?.stop();
  });

  it('holds the limit across the two nodes; a release on one admits the waiter on the other', async () => {
    const [a, b] = [node(), node()];
    const first = await a.acquire('glm-4.7', 'gpu-a', 2, AbortSignal.timeout(5_000));
    const second = await b.acquire('glm-4.7', 'gpu-a', 2, AbortSignal.timeout(5_000));
    assert.equal(await a.tryAcquire('glm-4.7', 'gpu-a', 2), undefined);
    assert.equal(await b.tryAcquire('glm-4.7', 'gpu-a', 2), undefined);
    // Another deployment of the same model has slots of its own.
    const other = await b.tryAcquire('glm-4.7', 'gpu-b', 2);
    assert.ok(other !== undefined);
    other();

    let admitted = false;
    const waiting = b.acquire('glm-4.7', 'gpu-a', 2, AbortSignal.timeout(5_000)).then((release) => {
      admitted = true;
      return release;
    });
    await sleep(150);
    assert.equal(admitted, false, 'no third slot while two are held');
    const releasedAt = Date.now();
    first();
    first(); // a second release frees nothing more
    const third = await waiting;
    assert.ok(Date.now() - releasedAt < 1_000, 'the waiter on the other node got the freed slot');
    assert.equal(await a.tryAcquire('glm-4.7', 'gpu-a', 2), undefined, 'still two held');
    second();
    third();
    await sleep(50);
    const again = await a.tryAcquire('glm-4.7', 'gpu-a', 2);
    assert.ok(again !== undefined, 'free once released');
    again();
    assert.deepEqual(logged, []);
  });

  it('a waiter leaves when its signal aborts, and holds nothing after', async () => {
    const [a, b] = [node(), node()];
    const held = await a.acquire('glm-4.6', 'only', 1, AbortSignal.timeout(5_000));
    const controller = new AbortController();
    const waiting = b.acquire('glm-4.6', 'only', 1, controller.signal);
    setTimeout(() => controller.abort(new Error('client left')), 100);
    await assert.rejects(waiting, /client left/);
    held();
    await sleep(50);
    const next = await b.tryAcquire('glm-4.6', 'only', 1);
    assert.ok(next !== undefined, 'the aborted waiter took no slot, local or shared');
    next();
  });

  it("frees a dead node's slots once their lease lapses, and keeps a live node's while they are renewed", async () => {
    const leaseMs = 400;
    const dying = node(leaseMs);
    const living = node(leaseMs);
    await dying.acquire('glm-4.5', 'gpu-a', 2, AbortSignal.timeout(5_000));
    const kept = await living.acquire('glm-4.5', 'gpu-a', 2, AbortSignal.timeout(5_000));
    // The dying node stops renewing without releasing (its process is gone).
    const dead = opened.find((entry) => entry.slots === dying);
    assert.ok(dead !== undefined);
    dead.limiter.close().catch(() => undefined);
    const started = Date.now();
    const taken = await living.acquire('glm-4.5', 'gpu-a', 2, AbortSignal.timeout(5_000));
    const waited = Date.now() - started;
    assert.ok(waited >= leaseMs / 2 && waited < leaseMs * 5, `waited ${waited} ms for the lapsed slot`);
    // The living node's own slot was renewed all along: still no third.
    assert.equal(await living.tryAcquire('glm-4.5', 'gpu-a', 2), undefined);
    kept();
    taken();
  });
});
