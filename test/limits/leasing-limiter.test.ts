import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { Admission } from '../../src/core/limits/admission.ts';
import type { CreditAccounts } from '../../src/core/limits/credit-accounts.ts';
import type { LimitCheck, LimitVerdict } from '../../src/core/limits/limiter.ts';
import { LeasingLimiter } from '../../src/limits/leasing-limiter.ts';
import { unitLeaseSize } from '../../src/limits/limit-leases.ts';
import { RedisLimiter } from '../../src/limits/redis-limiter.ts';
import { isRedisInstalled, startRedis, type RedisServer } from '../tasks/task-test-kit.ts';

/** What the limiter writes is under this prefix (redis-limiter.ts). */
const keyPrefix = 'model-platform:limits:';
let unique = 0;
const name = (kind: string) => `{leases-${process.pid}-${(unique += 1)}}:${kind}`;

describe('leases of large limits: two nodes on one Redis', { skip: isRedisInstalled() ? false : 'redis-server is not installed' }, () => {
  let redis: RedisServer | undefined;
  let reader: Redis;
  const nodes: LeasingLimiter[] = [];
  /** A node (a LeasingLimiter on its own connection); `idleMs` long: nothing goes back unless the test says so. */
  const node = (idleMs = 3_600_000) => {
    const limiter = new LeasingLimiter(new RedisLimiter(redis?.url ?? ''), { idleMs });
    nodes.push(limiter);
    return limiter;
  };
  before(async () => {
    redis = await startRedis();
    reader = new Redis(redis?.url ?? '', { keyPrefix });
  });
  after(async () => {
    for (const limiter of nodes) await limiter.close();
    reader.disconnect();
    await redis?.stop();
  });

  const count = async (counter: string) => Number((await reader.get(counter)) ?? '0');
  /** Checks from the nodes in turn, `perWave` at a time each, until a wave admits none; answers which checks (by index) each node admitted. */
  const exhaust = async (pair: readonly LeasingLimiter[], perWave: number, make: (index: number) => LimitCheck): Promise<number[][]> => {
    const admitted: number[][] = pair.map(() => []);
    let index = 0;
    for (;;) {
      const wave: Promise<{ verdict: LimitVerdict; node: number; index: number }>[] = [];
      for (let attempt = 0; attempt < perWave * pair.length; attempt += 1) {
        const checked = (index += 1);
        const at = attempt % pair.length;
        const limiter = pair[at];
        if (limiter !== undefined) wave.push(Promise.resolve(limiter.check(make(checked))).then((verdict) => ({ verdict, node: at, index: checked })));
      }
      const passed = (await Promise.all(wave)).filter((answer) => answer.verdict.admitted);
      if (passed.length === 0) return admitted;
      for (const answer of passed) admitted[answer.node]?.push(answer.index);
    }
  };
  const total = (admitted: number[][]) => admitted.reduce((sum, list) => sum + list.length, 0);

  it('leases only large limits, a small fraction at a time', () => {
    assert.equal(unitLeaseSize(999), 0);
    assert.equal(unitLeaseSize(1_000), 10);
    assert.equal(unitLeaseSize(100_000_000), 64);
  });

  it('a large rate limit: never more admitted than the limit, at most one lease short of it; unused units go back on close', async () => {
    const [first, second] = [node(), node()];
    const now = Date.now();
    const rate = { counter: name('rate'), limit: 2_000, expiresAt: now + 60_000 };
    const admitted = total(await exhaust([first, second], 40, () => ({ now, rate })));
    const lease = unitLeaseSize(rate.limit);
    assert.ok(admitted <= rate.limit && admitted >= rate.limit - lease, `admitted ${admitted} of ${rate.limit}`);
    assert.ok((await count(rate.counter)) <= rate.limit, 'Redis never counts past the limit');
    await first.close();
    await second.close();
    assert.equal(await count(rate.counter), admitted, 'closed nodes hold nothing: the counter is what was admitted');
  });

  it('a lease near the limit is cut to what is left: one node alone admits exactly the limit', async () => {
    const limiter = node();
    const now = Date.now();
    // 1005 = 91 leases of 1 + 10, then 4 left: the last lease must be 1 + 3.
    const calls = { counter: name('calls'), limit: 1_005, expiresAt: now + 60_000 };
    let admitted = 0;
    while ((await limiter.check({ now, calls })).admitted) admitted += 1;
    assert.equal(admitted, calls.limit);
    assert.equal(await count(calls.counter), calls.limit);
  });

  it('most checks of a leased limit do not reach Redis', async () => {
    const [first] = [node()];
    const now = Date.now();
    const calls = { counter: name('calls'), limit: 1_000_000, expiresAt: now + 60_000 };
    const before = await commandCalls(reader);
    for (let call = 0; call < 640; call += 1) assert.equal((await first.check({ now, calls })).admitted, true);
    const scripts = (await commandCalls(reader)) - before;
    assert.ok(scripts <= 20, `${scripts} script calls for 640 checks`);
    assert.ok((await count(calls.counter)) >= 640, 'leased calls are counted in Redis when leased');
  });

  it('a large calls quota with a small slot limit: a call refused by the slot gives its call unit back', async () => {
    const [first, second] = [node(), node()];
    const now = Date.now();
    const calls = { counter: name('calls'), limit: 5_000, expiresAt: now + 60_000 };
    const slotCounter = name('slot');
    const check = (holder: string) => ({ now, calls, slot: { counter: slotCounter, limit: 3, holder, leaseUntil: now + 60_000 } });
    const verdicts = await Promise.all(Array.from({ length: 40 }, (_unused, index) => (index % 2 === 0 ? first : second).check(check(`h${index}`))));
    assert.equal(verdicts.filter((verdict) => verdict.admitted).length, 3);
    // Now from the nodes' call leases: the full slot set refuses, and the units go back to the lease.
    for (let index = 0; index < 10; index += 1) assert.equal((await first.check(check(`late${index}`))).admitted, false);
    await first.close();
    await second.close();
    assert.equal(await count(calls.counter), 3, 'only the three admitted calls are counted');
  });

  it('large slot limits: never more held at once across both nodes than the limit; leased slots go back on close', async () => {
    const [first, second] = [node(), node()];
    const now = Date.now();
    const counter = name('slot');
    const limit = 1_000;
    // A call's slot is released as the object its check named (the lease keeps it by that object).
    const slots = new Map<number, NonNullable<LimitCheck['slot']>>();
    const slotOf = (index: number) => {
      let slot = slots.get(index);
      if (slot === undefined) {
        slot = { counter, limit, holder: `h${index}`, leaseUntil: now + 60_000 };
        slots.set(index, slot);
      }
      return slot;
    };
    const check = (index: number) => ({ now, slot: slotOf(index) });
    const admitted = await exhaust([first, second], 50, check);
    assert.ok(total(admitted) <= limit && total(admitted) >= limit - unitLeaseSize(limit), `admitted ${total(admitted)} of ${limit}`);
    assert.ok((await reader.zcard(counter)) <= limit);
    // Calls that end give their slot back to their node's lease, where the next call finds it.
    const [firsts = [], seconds = []] = admitted;
    for (const index of firsts.slice(0, 30)) await first.releaseSlot(slotOf(index));
    const again = await Promise.all(Array.from({ length: 40 }, (_unused, index) => first.check(check(10_000 + index))));
    assert.equal(again.filter((verdict) => verdict.admitted).length, 30);
    for (const index of [...firsts.slice(30), ...Array.from({ length: 40 }, (_unused, index) => 10_000 + index)]) await first.releaseSlot(slotOf(index));
    for (const index of seconds) await second.releaseSlot(slotOf(index));
    await first.close();
    await second.close();
    assert.equal(await reader.zcard(counter), 0, 'closed nodes hold no slots');
  });

  it("a crashed node's leased slots free after their lease: no close, no renewals", async () => {
    const crashed = node();
    const survivor = node();
    const now = Date.now();
    const counter = name('slot');
    const limit = 1_000;
    let held = 0;
    for (let index = 0; index < 100; index += 1) {
      if ((await crashed.check({ now, slot: { counter, limit, holder: `c${index}`, leaseUntil: now + 300 } })).admitted) held += 1;
    }
    assert.equal(held, 100);
    const leasedByCrashed = await reader.zcard(counter);
    assert.ok(leasedByCrashed > 100, `the crashed node leased more than it used (${leasedByCrashed})`);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const later = Date.now();
    const admitted = total(await exhaust([survivor], 50, (index) => ({ now: later, slot: { counter, limit, holder: `s${index}`, leaseUntil: later + 60_000 } })));
    assert.ok(admitted >= limit - unitLeaseSize(limit), `the survivor got ${admitted} of ${limit} slots`);
  });

  it('a node whose leased slots lapsed unrenewed (a stall) does not admit from them once others took their place', async () => {
    const stalled = node();
    const other = node();
    const now = Date.now();
    const counter = name('slot');
    const limit = 1_000;
    assert.equal((await stalled.check({ now, slot: { counter, limit, holder: 'first', leaseUntil: now + 300 } })).admitted, true);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const later = Date.now();
    const admitted = total(await exhaust([other], 50, (index) => ({ now: later, slot: { counter, limit, holder: `o${index}`, leaseUntil: later + 60_000 } })));
    assert.ok(admitted >= limit - unitLeaseSize(limit), `the other node got ${admitted}`);
    const late = await stalled.check({ now: later, slot: { counter, limit, holder: 'late', leaseUntil: later + 300 } });
    assert.deepEqual(late, { admitted: false, refusedBy: 'slot' }, 'its lapsed lease is not spent');
  });

  it("a live node's leased slots are renewed with its calls' slots, so they do not lapse", async () => {
    const alive = node();
    const other = node();
    const now = Date.now();
    const counter = name('slot');
    const limit = 1_000;
    const holds = Array.from({ length: 100 }, (_unused, index) => ({ counter, holder: `a${index}` }));
    for (const hold of holds) assert.equal((await alive.check({ now, slot: { counter, limit, holder: hold.holder, leaseUntil: now + 300 } })).admitted, true);
    await alive.renewSlots(holds, now + 60_000, now);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const later = Date.now();
    const admitted = total(await exhaust([other], 50, (index) => ({ now: later, slot: { counter, limit, holder: `o${index}`, leaseUntil: later + 60_000 } })));
    assert.ok(admitted <= limit - holds.length, `the other node got ${admitted}: the live node's slots lapsed`);
  });

  it('a rate lease belongs to its window: a new window does not spend units leased in the old one', async () => {
    const limiter = node();
    const counter = name('rate');
    const now = Date.now();
    assert.equal((await limiter.check({ now, rate: { counter, limit: 2_000, expiresAt: now + 300 } })).admitted, true);
    assert.equal(await count(counter), 1 + unitLeaseSize(2_000), 'the call and a lease');
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal(await count(counter), 0, 'the window ended in Redis');
    const later = Date.now();
    assert.equal((await limiter.check({ now: later, rate: { counter, limit: 2_000, expiresAt: later + 300 } })).admitted, true);
    assert.equal(await count(counter), 1 + unitLeaseSize(2_000), 'the new window was asked of Redis, not taken from the old lease');
  });

  it('units unused for an idle tick go back to Redis', async () => {
    const limiter = node(100);
    const now = Date.now();
    const calls = { counter: name('calls'), limit: 100_000, expiresAt: now + 60_000 };
    assert.equal((await limiter.check({ now, calls })).admitted, true);
    assert.equal(await count(calls.counter), 1 + unitLeaseSize(calls.limit));
    await waitUntil(async () => (await count(calls.counter)) === 1, 'the idle lease going back');
  });

  it('a large token quota: admitted while under it, tokens past it only from the calls that crossed it; headroom goes back on close', async () => {
    const [first, second] = [node(), node()];
    const now = Date.now();
    const tokens = { counter: name('tokens'), limit: 10_000, expiresAt: now + 60_000 };
    await first.seed(tokens.counter, 0, tokens.expiresAt);
    const perCall = 7;
    let used = 0;
    // Each node: call after call, each recording its tokens once done, until refused.
    const run = async (limiter: LeasingLimiter) => {
      while ((await limiter.check({ now, tokens })).admitted) {
        used += perCall;
        await limiter.add(tokens.counter, perCall, tokens.expiresAt);
      }
    };
    await Promise.all([run(first), run(second)]);
    assert.ok(used >= tokens.limit && used < tokens.limit + 2 * perCall, `${used} tokens used of ${tokens.limit}`);
    await first.close();
    await second.close();
    assert.equal(await count(tokens.counter), used, 'Redis holds the tokens used, no headroom');

    // Headroom a node leased and did not use goes back on close.
    const third = node();
    const fresh = { ...tokens, counter: name('tokens') };
    await third.seed(fresh.counter, 100, fresh.expiresAt);
    assert.equal((await third.check({ now, tokens: fresh })).admitted, true);
    assert.ok((await count(fresh.counter)) > 100, 'headroom is counted when leased');
    await third.add(fresh.counter, 5, fresh.expiresAt);
    await third.close();
    assert.equal(await count(fresh.counter), 105);
  });

  it("admission's calls on a leased slot limit: each ended call's slot goes back to its node's lease", async () => {
    const limiter = node();
    const policy = { concurrency: { perModel: 1_000 } };
    const admission = new Admission({ limiter, credits: noCredits, policyOf: () => Promise.resolve(policy), tokensSince: () => Promise.resolve(0) });
    const key = { id: `leased-slots-${process.pid}`, policy };
    const calls = 3_000;
    for (let call = 0; call < calls; call += 1) {
      const ticket = await admission.admitCall(key, 'glm-4.7', 'none', false);
      assert.ok(ticket !== undefined, `call ${call} admitted`);
      ticket.finish(true);
    }
    // Three times the limit, one at a time: only a lease's worth of slots was ever taken from Redis.
    const taken = await reader.zcard(`{${key.id}}:slot:glm-4.7`);
    assert.ok(taken <= unitLeaseSize(1_000) + 1, `the node keeps reusing its leased slots (${taken} taken from Redis)`);
    await admission.close();
  });
});

const noCredits: CreditAccounts = {
  balance: () => undefined,
  charge: () => undefined,
  hold: () => Promise.resolve(undefined),
  reconcile: () => Promise.resolve({ settled: 0, released: 0 }),
};

async function commandCalls(reader: Redis): Promise<number> {
  const stats = await reader.info('commandstats');
  return Number(/cmdstat_evalsha:calls=(\d+)/.exec(stats)?.[1] ?? '0') + Number(/cmdstat_eval:calls=(\d+)/.exec(stats)?.[1] ?? '0');
}

async function waitUntil(condition: () => Promise<boolean>, what: string): Promise<void> {
  const until = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > until) assert.fail(`${what} did not happen within 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
