import { Redis } from 'ioredis';
import type { LimitCheck, Limiter, LimitVerdict, SlotHold } from '../core/limits/limiter.ts';

/**
 * One admission step (Limiter.check) as a single script, so two nodes can never both take the
 * last unit. KEYS: rate, tokens, calls and slot counters (an unused one is named but untouched);
 * ARGV: now, then limit/expiry pairs, -1 for a part not asked about. Slots are a sorted set of
 * holders scored by lease end: lapsed holders (a crashed node's) are dropped before counting.
 */
const checkScript = `
local now = tonumber(ARGV[1])
local rateLimit = tonumber(ARGV[2])
if rateLimit >= 0 then
  if tonumber(redis.call('GET', KEYS[1]) or '0') >= rateLimit then return 'rate' end
  redis.call('INCR', KEYS[1])
  redis.call('PEXPIREAT', KEYS[1], ARGV[3])
end
local tokensLimit = tonumber(ARGV[4])
if tokensLimit >= 0 and tonumber(redis.call('GET', KEYS[2]) or '0') >= tokensLimit then return 'tokens' end
local callsLimit = tonumber(ARGV[5])
if callsLimit >= 0 and tonumber(redis.call('GET', KEYS[3]) or '0') >= callsLimit then return 'calls' end
local slotLimit = tonumber(ARGV[7])
if slotLimit >= 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
  if redis.call('ZCARD', KEYS[4]) >= slotLimit then return 'slot' end
  redis.call('ZADD', KEYS[4], ARGV[9], ARGV[8])
  redis.call('PEXPIREAT', KEYS[4], redis.call('ZRANGE', KEYS[4], -1, -1, 'WITHSCORES')[2])
end
if callsLimit >= 0 then
  redis.call('INCR', KEYS[3])
  redis.call('PEXPIREAT', KEYS[3], ARGV[6])
end
return 'ok'
`;

/**
 * Extends one holder's lease. XX: a holder whose lease lapsed is not brought back, since its slot
 * may be another call's by now. The set lives as long as its longest lease.
 */
const renewScript = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if redis.call('ZADD', KEYS[1], 'XX', ARGV[1], ARGV[3]) == 0 and redis.call('ZSCORE', KEYS[1], ARGV[3]) then
  redis.call('PEXPIREAT', KEYS[1], redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2])
end
return 0
`;

const addScript = `
redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
return 0
`;

interface LimiterCommands {
  limitsCheck(rate: string, tokens: string, calls: string, slot: string, ...args: (string | number)[]): Promise<string>;
  limitsRenew(counter: string, leaseUntil: number, now: number, holder: string): Promise<number>;
  limitsAdd(counter: string, amount: number, expiresAt: number): Promise<number>;
}

/** Keys this limiter writes, apart from anything else sharing the Redis (the BullMQ queues). */
const keyPrefix = 'model-platform:limits:';

/**
 * The Limiter of a fleet (REDIS_URL set): counters shared by every node in Redis, each step one
 * atomic Lua script. Counters expire with their window; slots with their lease (renewed by the
 * holding node while the call runs), so a node that dies frees its slots within one lease.
 */
export class RedisLimiter implements Limiter {
  readonly #redis: Redis & LimiterCommands;

  constructor(redisUrl: string) {
    // Fail a command after one reconnection attempt instead of queueing requests behind a dead Redis;
    // connect on first use, so commands that never admit a request (the CLI) never connect.
    // Auto-pipelining sends the commands of one event-loop turn in one write, in order: a call costs
    // four commands, and a socket write per command was most of the limiter's cost (BENCHMARKS.md "Fleet").
    const redis = new Redis(redisUrl, { keyPrefix, maxRetriesPerRequest: 1, lazyConnect: true, enableAutoPipelining: true });
    // Connection trouble surfaces where it matters: the command that fails (a 500 for that request).
    redis.on('error', () => undefined);
    redis.defineCommand('limitsCheck', { numberOfKeys: 4, lua: checkScript });
    redis.defineCommand('limitsRenew', { numberOfKeys: 1, lua: renewScript });
    redis.defineCommand('limitsAdd', { numberOfKeys: 1, lua: addScript });
    this.#redis = redis as Redis & LimiterCommands;
  }

  async check(check: LimitCheck): Promise<LimitVerdict> {
    const unused = `${check.rate?.counter ?? check.tokens?.counter ?? check.calls?.counter ?? check.slot?.counter ?? ''}:unused`;
    const result = await this.#redis.limitsCheck(
      check.rate?.counter ?? unused,
      check.tokens?.counter ?? unused,
      check.calls?.counter ?? unused,
      check.slot?.counter ?? unused,
      check.now,
      check.rate?.limit ?? -1,
      check.rate?.expiresAt ?? 0,
      check.tokens?.limit ?? -1,
      check.calls?.limit ?? -1,
      check.calls?.expiresAt ?? 0,
      check.slot?.limit ?? -1,
      check.slot?.holder ?? '',
      check.slot?.leaseUntil ?? 0,
    );
    if (result === 'ok') return { admitted: true };
    if (result === 'rate' || result === 'tokens' || result === 'calls' || result === 'slot') return { admitted: false, refusedBy: result };
    throw new Error(`the limits script answered '${result}'`);
  }

  async releaseSlot(counter: string, holder: string): Promise<void> {
    await this.#redis.zrem(counter, holder);
  }

  async renewSlots(slots: readonly SlotHold[], leaseUntil: number, now: number): Promise<void> {
    // One script per slot (slots of different keys may sit on different Cluster shards); sent together.
    await Promise.all(slots.map((slot) => this.#redis.limitsRenew(slot.counter, leaseUntil, now, slot.holder)));
  }

  async add(counter: string, amount: number, expiresAt: number): Promise<void> {
    await this.#redis.limitsAdd(counter, amount, expiresAt);
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
