import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Semaphore } from '../../src/core/backends/concurrency-limit.ts';

describe('Semaphore (maxConcurrency)', () => {
  it('admits up to the limit, then in order as slots free', async () => {
    const slots = new Semaphore(2);
    const signal = new AbortController().signal;
    const first = await slots.acquire(signal);
    await slots.acquire(signal);
    const order: string[] = [];
    const third = slots.acquire(signal).then((release) => {
      order.push('third');
      return release;
    });
    const fourth = slots.acquire(signal).then(() => order.push('fourth'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(order, [], 'both wait while two slots are held');
    first();
    first(); // releasing twice frees one slot only
    await third;
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(order, ['third']);
    (await third)();
    await fourth;
    assert.deepEqual(order, ['third', 'fourth']);
  });

  it('lets a waiter leave when its client goes away', async () => {
    const slots = new Semaphore(1);
    const release = await slots.acquire(new AbortController().signal);
    const controller = new AbortController();
    const waiting = slots.acquire(controller.signal);
    controller.abort(new Error('client left'));
    await assert.rejects(waiting, /client left/);
    release();
    const again = await slots.acquire(new AbortController().signal);
    again();
  });
});
