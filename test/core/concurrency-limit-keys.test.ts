import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Semaphore } from '../../src/core/backends/concurrency-limit.ts';

const open = new AbortController().signal;

/** Lets every settled acquisition's `then` run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('Semaphore with keys', () => {
  it('gives freed shared slots to the keys in turn, not in arrival order', async () => {
    const slots = new Semaphore(1);
    const first = await slots.acquire('busy caller', open);
    const order: string[] = [];
    const releases: (() => void)[] = [];
    const waiters = ['busy caller', 'busy caller', 'busy caller', 'other caller'].map((key) =>
      slots.acquire(key, open).then((release) => {
        order.push(key);
        releases.push(release);
      }),
    );
    first();
    // One slot: each admitted waiter frees it for the next once it has run.
    for (let admitted = 1; admitted < waiters.length; admitted += 1) {
      await settle();
      assert.equal(order.length, admitted);
      releases[admitted - 1]?.();
    }
    await Promise.all(waiters);
    assert.deepEqual(order, ['busy caller', 'other caller', 'busy caller', 'busy caller']);
  });

  it("holds each key to its own limit while other keys go ahead, and frees the key's slot on release", async () => {
    const slots = new Semaphore();
    const held = [await slots.acquire('deployment a', open, { keyLimit: 2 }), await slots.acquire('deployment a', open, { keyLimit: 2 })];
    assert.equal(slots.tryAcquire('deployment a', 2), undefined, 'deployment a is at its limit');
    const other = slots.tryAcquire('deployment b', 1);
    assert.notEqual(other, undefined, 'another key has slots of its own');
    let third = false;
    const waiting = slots.acquire('deployment a', open, { keyLimit: 2 }).then((release) => {
      third = true;
      return release;
    });
    await settle();
    assert.equal(third, false);
    held[0]?.();
    (await waiting)();
    assert.equal(third, true);
    held[1]?.();
    other?.();
    assert.equal(slots.held, 0);
  });

  it("refuses with the caller's busy error when no slot comes free within the wait, and the slot stays usable", async () => {
    const slots = new Semaphore(1);
    const release = await slots.acquire('one caller', open);
    await assert.rejects(slots.acquire('another caller', open, { wait: { ms: 1, busy: () => new Error('too busy') } }), /too busy/);
    release();
    const again = await slots.acquire('another caller', open, { wait: { ms: 60_000, busy: () => new Error('too busy') } });
    assert.equal(slots.held, 1);
    again();
    assert.equal(slots.held, 0);
  });

  it('lets a waiter leave when its signal aborts, without taking a slot', async () => {
    const slots = new Semaphore(1);
    const release = await slots.acquire('one caller', open);
    const controller = new AbortController();
    const leaving = slots.acquire('another caller', controller.signal);
    const staying = slots.acquire('a third caller', open);
    controller.abort(new Error('client left'));
    await assert.rejects(leaving, /client left/);
    release();
    (await staying)();
    assert.equal(slots.held, 0);
  });
});
