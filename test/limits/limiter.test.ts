import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Limiter } from '../../src/core/limits/limiter.ts';
import { InProcessLimiter } from '../../src/limits/in-process-limiter.ts';
import { RedisLimiter } from '../../src/limits/redis-limiter.ts';
import { isRedisInstalled, startRedis, type RedisServer } from '../tasks/task-test-kit.ts';

interface LimiterPair {
  /** Two nodes' limiters over the same counters (one shared object in process). */
  readonly first: Limiter;
  readonly second: Limiter;
}

const redisInstalled = isRedisInstalled();
let redis: RedisServer | undefined;
before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis?.stop();
});

const implementations: { name: string; skip: string | false; open: () => LimiterPair }[] = [
  {
    name: 'in-process',
    skip: false,
    open: () => {
      const limiter = new InProcessLimiter();
      return { first: limiter, second: limiter };
    },
  },
  {
    name: 'Redis (two connections, as two nodes)',
    skip: redisInstalled ? false : 'redis-server is not installed',
    open: () => ({ first: new RedisLimiter(redis?.url ?? ''), second: new RedisLimiter(redis?.url ?? '') }),
  },
];

let unique = 0;
const name = (kind: string) => `{test-${process.pid}-${(unique += 1)}}:${kind}`;

for (const implementation of implementations) {
  describe(`Limiter contract: ${implementation.name}`, { skip: implementation.skip }, () => {
    let pair: LimiterPair;
    before(() => {
      pair = implementation.open();
    });
    after(async () => {
      await pair.first.close();
      if (pair.second !== pair.first) await pair.second.close();
    });

    it('a rate window admits exactly its limit, even when 40 checks race from two nodes', async () => {
      const now = Date.now();
      const rate = { counter: name('rate'), limit: 7, expiresAt: now + 60_000 };
      const verdicts = await Promise.all(Array.from({ length: 40 }, (_unused, index) => (index % 2 === 0 ? pair.first : pair.second).check({ now, rate })));
      assert.equal(verdicts.filter((verdict) => verdict.admitted).length, 7);
      assert.ok(verdicts.every((verdict) => verdict.admitted || verdict.refusedBy === 'rate'));
    });

    it('a rate window ends at its expiry: the next one starts from zero', async () => {
      const now = Date.now();
      const counter = name('rate');
      assert.equal((await pair.first.check({ now, rate: { counter, limit: 1, expiresAt: now + 300 } })).admitted, true);
      assert.equal((await pair.second.check({ now, rate: { counter, limit: 1, expiresAt: now + 300 } })).admitted, false);
      await new Promise((resolve) => setTimeout(resolve, 400));
      const later = Date.now();
      assert.equal((await pair.second.check({ now: later, rate: { counter, limit: 1, expiresAt: later + 300 } })).admitted, true);
    });

    it('a calls quota admits exactly its number and counts only admitted calls', async () => {
      const now = Date.now();
      const calls = { counter: name('calls'), limit: 3, expiresAt: now + 60_000 };
      const slot = { counter: name('slot'), limit: 1, leaseUntil: now + 60_000 };
      // The slot refuses the second call: that call must not use up the quota.
      assert.deepEqual(await pair.first.check({ now, calls, slot: { ...slot, holder: 'a' } }), { admitted: true });
      assert.deepEqual(await pair.second.check({ now, calls, slot: { ...slot, holder: 'b' } }), { admitted: false, refusedBy: 'slot' });
      await pair.first.releaseSlot({ counter: slot.counter, holder: 'a' });
      const results = [];
      for (let call = 0; call < 4; call += 1) results.push(await pair.second.check({ now, calls }));
      assert.deepEqual(results, [{ admitted: true }, { admitted: true }, { admitted: false, refusedBy: 'calls' }, { admitted: false, refusedBy: 'calls' }]);
    });

    it('a token quota refuses once the tokens counted reach it (seeded from the ledger, then added to)', async () => {
      const now = Date.now();
      const counter = name('tokens');
      await pair.first.seed(counter, 90, now + 60_000);
      await pair.second.seed(counter, 0, now + 60_000);
      assert.deepEqual(await pair.second.check({ now, tokens: { counter, limit: 100, expiresAt: now + 60_000 } }), { admitted: true }, 'seed sets only once');
      await pair.first.add(counter, 15, now + 60_000);
      assert.deepEqual(await pair.second.check({ now, tokens: { counter, limit: 100, expiresAt: now + 60_000 } }), { admitted: false, refusedBy: 'tokens' });
    });

    it('concurrency slots hold exactly their limit across nodes and free on release', async () => {
      const now = Date.now();
      const counter = name('slot');
      const verdicts = await Promise.all(
        Array.from({ length: 20 }, (_unused, index) =>
          (index % 2 === 0 ? pair.first : pair.second).check({ now, slot: { counter, limit: 2, holder: `h${index}`, leaseUntil: now + 60_000 } }),
        ),
      );
      const holders = verdicts.flatMap((verdict, index) => (verdict.admitted ? [`h${index}`] : []));
      assert.equal(holders.length, 2);
      await pair.second.releaseSlot({ counter, holder: holders[0] ?? '' });
      await pair.second.releaseSlot({ counter, holder: holders[0] ?? '' });
      assert.deepEqual(await pair.first.check({ now, slot: { counter, limit: 2, holder: 'late', leaseUntil: now + 60_000 } }), { admitted: true });
      assert.deepEqual(await pair.first.check({ now, slot: { counter, limit: 2, holder: 'later', leaseUntil: now + 60_000 } }), {
        admitted: false,
        refusedBy: 'slot',
      });
    });

    it('steps asked together run in the order asked, for several keys at once: a release frees its slot for the check after it', async () => {
      const now = Date.now();
      const slot = { counter: name('slot'), limit: 1, leaseUntil: now + 60_000 };
      // Another key's counter (another hash tag), asked in the same turn.
      const calls = { counter: name('calls'), limit: 1, expiresAt: now + 60_000 };
      assert.deepEqual(await pair.first.check({ now, slot: { ...slot, holder: 'a' } }), { admitted: true });
      const steps = Promise.all([
        pair.first.releaseSlot({ counter: slot.counter, holder: 'a' }),
        pair.first.check({ now, slot: { ...slot, holder: 'b' } }),
        pair.first.check({ now, calls }),
        pair.first.check({ now, slot: { ...slot, holder: 'c' } }),
        pair.first.check({ now, calls }),
      ]);
      assert.deepEqual((await steps).slice(1), [
        { admitted: true },
        { admitted: true },
        { admitted: false, refusedBy: 'slot' },
        { admitted: false, refusedBy: 'calls' },
      ]);
    });

    it("a crashed node's slots lapse at their lease end unless renewed; a lapsed slot is not brought back", async () => {
      const now = Date.now();
      const counter = name('slot');
      await pair.first.check({ now, slot: { counter, limit: 2, holder: 'crashed', leaseUntil: now + 200 } });
      await pair.first.check({ now, slot: { counter, limit: 2, holder: 'alive', leaseUntil: now + 200 } });
      await pair.first.renewSlots([{ counter, holder: 'alive' }], now + 60_000, now);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const later = Date.now();
      await pair.first.renewSlots([{ counter, holder: 'crashed' }], later + 60_000, later);
      assert.deepEqual(await pair.second.check({ now: later, slot: { counter, limit: 2, holder: 'new', leaseUntil: later + 60_000 } }), { admitted: true });
      assert.deepEqual(await pair.second.check({ now: later, slot: { counter, limit: 2, holder: 'newer', leaseUntil: later + 60_000 } }), {
        admitted: false,
        refusedBy: 'slot',
      });
    });
  });
}
