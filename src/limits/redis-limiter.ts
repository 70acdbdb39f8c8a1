import { Redis } from 'ioredis';
import type { LimitCheck, Limiter, LimitVerdict, SlotHold } from '../core/limits/limiter.ts';
import { addToCounterScript, checkLimitsScript, renewSlotScript } from './redis-limit-scripts.ts';

interface LimiterCommands {
  checkLimits(keyCount: number, ...keysAndCheck: string[]): Promise<string>;
  addToCounter(counter: string, amount: number, expiresAt: number): Promise<unknown>;
  renewSlot(slots: string, holder: string, leaseUntil: number, now: number): Promise<unknown>;
}

/** Keys this limiter writes, apart from anything else sharing the Redis (the BullMQ queues). */
const keyPrefix = 'model-platform:limits:';

const admitted: LimitVerdict = { admitted: true };

/**
 * The Limiter of a fleet (REDIS_URL set): counters shared by every node in Redis, every step one
 * atomic script (redis-limit-scripts.ts), so a limit holds exactly across nodes. Counters expire
 * with their window; slots with their lease (renewed by the holding node while the call runs), so
 * a node that dies frees its slots within one lease. Steps asked by one node run in the order
 * asked (one connection), so a release asked before a check frees its slot for that check.
 */
export class RedisLimiter implements Limiter {
  readonly #redis: Redis & LimiterCommands;

  constructor(redisUrl: string) {
    // Fail a command after one reconnection attempt instead of queueing requests behind a dead Redis;
    // connect on first use, so commands that never admit a request (the CLI) never connect.
    // Commands asked in one event-loop turn go out in one write (auto-pipelining).
    const redis = new Redis(redisUrl, { keyPrefix, maxRetriesPerRequest: 1, lazyConnect: true, enableAutoPipelining: true });
    // Connection trouble surfaces where it matters: the command that fails (a 500 for that request).
    redis.on('error', () => undefined);
    // No fixed key count for a check: it names the counters of its parts (ioredis prefixes them as keys).
    redis.defineCommand('checkLimits', { lua: checkLimitsScript });
    redis.defineCommand('addToCounter', { lua: addToCounterScript, numberOfKeys: 1 });
    redis.defineCommand('renewSlot', { lua: renewSlotScript, numberOfKeys: 1 });
    this.#redis = redis as Redis & LimiterCommands;
  }

  async check(check: LimitCheck): Promise<LimitVerdict> {
    const keys: string[] = [];
    /** A part as the script reads it: its counter by its place (from 1) in KEYS. */
    const named = <Part extends { readonly counter: string }>(part: Part | undefined) => {
      if (part === undefined) return undefined;
      const { counter, ...fields } = part;
      return { key: keys.push(counter), ...fields };
    };
    const script = { now: check.now, rate: named(check.rate), tokens: named(check.tokens), calls: named(check.calls), slot: named(check.slot) };
    if (keys.length === 0) return admitted;
    const answer = await this.#redis.checkLimits(keys.length, ...keys, JSON.stringify(script));
    if (answer === 'ok') return admitted;
    if (answer === 'rate' || answer === 'tokens' || answer === 'calls' || answer === 'slot') return { admitted: false, refusedBy: answer };
    throw new Error(`the limits script answered '${String(answer)}'`);
  }

  async releaseSlot(slot: SlotHold): Promise<void> {
    await this.#redis.zrem(slot.counter, slot.holder);
  }

  async renewSlots(slots: readonly SlotHold[], leaseUntil: number, now: number): Promise<void> {
    await Promise.all(slots.map((slot) => this.#redis.renewSlot(slot.counter, slot.holder, leaseUntil, now)));
  }

  async add(counter: string, amount: number, expiresAt: number): Promise<void> {
    await this.#redis.addToCounter(counter, amount, expiresAt);
  }

  async seed(counter: string, value: number, expiresAt: number): Promise<void> {
    await this.#redis.set(counter, value, 'PXAT', expiresAt, 'NX');
  }

  async close(): Promise<void> {
    // quit() waits for a connection that may never come back; a Redis that is gone is just dropped.
    if (this.#redis.status !== 'ready') {
      this.#redis.disconnect();
      return;
    }
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}
