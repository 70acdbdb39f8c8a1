import { Redis, type ChainableCommander } from 'ioredis';
import type { LimitCheck, Limiter, LimitVerdict, SlotHold } from '../core/limits/limiter.ts';
import { LimitBatch, limitsScript, type LeaseAnswer, type LeaseRequest } from './redis-limit-batch.ts';

interface LimiterCommands {
  limitsBatch(keyCount: number, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>;
}
type LimiterPipeline = ChainableCommander & { limitsBatch(keyCount: number, keys: readonly string[], args: readonly (string | number)[]): LimiterPipeline };

/** Keys this limiter writes, apart from anything else sharing the Redis (the BullMQ queues). */
const keyPrefix = 'model-platform:limits:';

/** A batch with this many arguments is sent at once (a turn with thousands of calls of one key). */
const maxBatchArguments = 10_000;

/**
 * The Limiter of a fleet (REDIS_URL set): counters shared by every node in Redis. Counters expire
 * with their window; slots with their lease (renewed by the holding node while the call runs), so
 * a node that dies frees its slots within one lease.
 *
 * Every step waits for the end of the event-loop turn (setImmediate), and the steps of one turn on
 * one key's counters go to Redis as one script call (LimitBatch), all keys' in one socket write: a
 * call's slot release and token add (asked in the turn its answer leaves) travel together, and on
 * a node under load a turn also holds other calls' checks and ends. Round trips to Redis (socket
 * writes, reply wake-ups, the client's command objects) were most of what limits cost
 * (BENCHMARKS.md "bench:fleet"). The wait is the rest of the turn: I/O callbacks already due,
 * well under a millisecond unless the node is saturated; other nodes see a release or a token add
 * that much later (a late release only refuses, never admits, too many). Steps run in the order
 * they were asked, so a release asked before a check frees its slot for that check.
 */
export class RedisLimiter implements Limiter {
  readonly #redis: Redis & LimiterCommands;
  /** The batches of this turn, by hash tag (one key's counters). */
  #batches = new Map<string, LimitBatch>();
  #flushScheduled = false;

  constructor(redisUrl: string) {
    // Fail a command after one reconnection attempt instead of queueing requests behind a dead Redis;
    // connect on first use, so commands that never admit a request (the CLI) never connect.
    // No auto-pipelining: the batches already are the pipeline (its Pipeline object per turn was a
    // good part of the client's cost).
    const redis = new Redis(redisUrl, { keyPrefix, maxRetriesPerRequest: 1, lazyConnect: true });
    // Connection trouble surfaces where it matters: the command that fails (a 500 for that request).
    redis.on('error', () => undefined);
    // No fixed key count: each batch names its own counters (ioredis prefixes them as keys).
    redis.defineCommand('limitsBatch', { lua: limitsScript });
    this.#redis = redis as Redis & LimiterCommands;
  }

  check(check: LimitCheck): Promise<LimitVerdict> {
    const counter = check.rate?.counter ?? check.tokens?.counter ?? check.calls?.counter ?? check.slot?.counter;
    if (counter === undefined) return Promise.resolve({ admitted: true });
    return this.#batch(counter).check(check);
  }

  /**
   * A check that also leases up to `lease` more units of its parts (LeasingLimiter). With a slot
   * lease, `check.slot.holder` is a prefix: the call's slot and the leased ones are members
   * prefix0 to prefixN, N the slots granted.
   */
  checkLeasing(check: LimitCheck, lease: LeaseRequest): Promise<LeaseAnswer> {
    const counter = check.rate?.counter ?? check.tokens?.counter ?? check.calls?.counter ?? check.slot?.counter;
    if (counter === undefined) return Promise.resolve({ verdict: { admitted: true }, rate: 0, tokens: 0, calls: 0, slots: 0 });
    return this.#batch(counter).checkLeasing(check, lease);
  }

  /** Subtracts leased units not used from a counter, while it lives. */
  giveBack(counter: string, amount: number): Promise<void> {
    return this.#batch(counter).giveBack(counter, amount);
  }

  releaseSlot(slot: SlotHold): Promise<void> {
    return this.#batch(slot.counter).release(slot.counter, slot.holder);
  }

  async renewSlots(slots: readonly SlotHold[], leaseUntil: number, now: number): Promise<void> {
    const renewing = new Set<Promise<void>>();
    for (const slot of slots) renewing.add(this.#batch(slot.counter).renew(slot.counter, slot.holder, leaseUntil, now));
    await Promise.all(renewing);
  }

  add(counter: string, amount: number, expiresAt: number): Promise<void> {
    return this.#batch(counter).add(counter, amount, expiresAt);
  }

  seed(counter: string, value: number, expiresAt: number): Promise<void> {
    return this.#batch(counter).seed(counter, value, expiresAt);
  }

  async close(): Promise<void> {
    // Steps asked before closing still run (an ending call's release).
    this.#flush();
    // quit() waits for a connection that may never come back; a Redis that is gone is just dropped.
    if (this.#redis.status !== 'ready') {
      this.#redis.disconnect();
      return;
    }
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }

  /** This turn's batch for the key a counter belongs to (its `{keyId}` hash tag). */
  #batch(counter: string): LimitBatch {
    const tag = counter.slice(0, counter.indexOf('}') + 1);
    let batch = this.#batches.get(tag);
    if (batch !== undefined && batch.args.length >= maxBatchArguments) {
      this.#send(batch);
      batch = undefined;
    }
    if (batch === undefined) {
      batch = new LimitBatch();
      this.#batches.set(tag, batch);
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(this.#flush);
      }
    }
    return batch;
  }

  /** Sends this turn's batches: one command, or one pipeline (one write) when several keys took part. */
  readonly #flush = (): void => {
    this.#flushScheduled = false;
    const batches = this.#batches;
    if (batches.size === 0) return;
    this.#batches = new Map();
    if (batches.size === 1) {
      for (const batch of batches.values()) this.#send(batch);
      return;
    }
    const pipeline = this.#redis.pipeline() as LimiterPipeline;
    const sent = [...batches.values()];
    for (const batch of sent) pipeline.limitsBatch(batch.keys.length, batch.keys, batch.args);
    pipeline.exec().then(
      (results) => sent.forEach((batch, index) => batch.settle(results?.[index]?.[0], results?.[index]?.[1])),
      (error: unknown) => sent.forEach((batch) => batch.settle(error, undefined)),
    );
  };

  #send(batch: LimitBatch): void {
    this.#redis.limitsBatch(batch.keys.length, batch.keys, batch.args).then(
      (answer) => batch.settle(undefined, answer),
      (error: unknown) => batch.settle(error, undefined),
    );
  }
}
