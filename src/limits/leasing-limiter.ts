import { randomUUID } from 'node:crypto';
import type { LimitCheck, Limiter, LimitVerdict, SlotHold } from '../core/limits/limiter.ts';
import { SlotLease, TokenLease, UnitLease, isLeased, largestLease, tokenLeaseSize, unitLeaseSize, type Refillable } from './limit-leases.ts';
import type { LeaseAnswer } from './redis-limit-batch.ts';
import type { RedisLimiter } from './redis-limiter.ts';

export interface LeasingLimiterOptions {
  /** How often leases are looked over: units unused since the last look go back to Redis (default 1 s). */
  readonly idleMs?: number;
  readonly now?: () => number;
  readonly log?: (message: string, error: unknown) => void;
}

const admitted: LimitVerdict = { admitted: true };

/**
 * The Limiter of a fleet node: the Redis limiter, with large limits (limit-leases.ts: 1000 and
 * more) leased. A node takes a block of rate units, calls, slots or token headroom in one Redis
 * step, counted there at once and only as far as the limit allows, and admits calls from it
 * without asking Redis; a part it holds nothing of goes to Redis with the call, which also leases
 * the next block. So the fleet never admits more than a limit. The price: units one node holds
 * unused are refused to the others until they go back (units unused for a whole idle tick, after
 * 1-2 s; everything on close) or lapse (rate and calls with their window, slots after their
 * lease, token headroom with its window, for a node that crashed): at most one lease per other
 * node (64 units at first, doubled while a busy node spends a lease within 100 ms, never more
 * than 1% of the limit), plus, for slots, those its calls ended since the last tick. Token
 * quotas: a node admits while the tokens its calls recorded are below the headroom it reserved
 * (within the limit), and writes them once they reach it; so tokens past the limit are those of
 * calls in flight when a reservation or the limit ran out, as without leases. Limits below 1000
 * are not leased: exact, call by call, as the Redis limiter alone.
 */
export class LeasingLimiter implements Limiter {
  readonly #redis: RedisLimiter;
  readonly #now: () => number;
  readonly #log: (message: string, error: unknown) => void;
  /** Rate and calls leases by counter (counters are per window, so a new window has none yet). */
  readonly #units = new Map<string, UnitLease>();
  readonly #tokens = new Map<string, TokenLease>();
  readonly #slots = new Map<string, SlotLease>();
  /** Calls' slots that are leased ones (by the check's slot object): their release goes back to the lease, not to Redis. */
  readonly #leasedSlots = new Map<SlotHold, SlotLease>();
  /** Leased slots are members this prefix, a lease number, a colon and a member number (LimitBatch). */
  readonly #memberPrefix = `${randomUUID()}:lease:`;
  #leaseSequence = 0;
  readonly #timer: NodeJS.Timeout;

  constructor(redis: RedisLimiter, options: LeasingLimiterOptions = {}) {
    this.#redis = redis;
    this.#now = options.now ?? Date.now;
    this.#log = options.log ?? ((message, error) => console.error(message, error));
    this.#timer = setInterval(() => this.#giveBackIdle(), options.idleMs ?? 1_000);
    this.#timer.unref();
  }

  check(check: LimitCheck): LimitVerdict | Promise<LimitVerdict> {
    return this.#check(check, false);
  }

  /**
   * `waited`: this check waited for a refill already; what its leases lack now it asks of Redis,
   * without leasing more. The lease-hit path (every call of a busy key but one per lease) makes
   * no closure, so it costs no context object either; the rest is #checkRemote.
   */
  #check(check: LimitCheck, waited: boolean): LimitVerdict | Promise<LimitVerdict> {
    const { now, rate, tokens, calls, slot } = check;
    const rateLease = rate === undefined ? undefined : this.#unitLease(rate.counter, rate.limit, rate.expiresAt, now);
    const tokenLease = tokens === undefined ? undefined : this.#tokenLease(tokens.counter, tokens.limit, tokens.expiresAt, now);
    const callsLease = calls === undefined ? undefined : this.#unitLease(calls.counter, calls.limit, calls.expiresAt, now);
    const slotLease = slot === undefined || !isLeased(slot.limit) ? undefined : this.#slotLease(slot.counter, now, slot.leaseUntil);
    if (!waited) {
      const refill =
        (rateLease?.free === 0 ? rateLease.refill : undefined) ??
        (tokenLease !== undefined && tokenLease.drawn >= tokenLease.granted ? tokenLease.refill : undefined) ??
        (callsLease?.free === 0 ? callsLease.refill : undefined) ??
        (slotLease?.free === 0 ? slotLease.refill : undefined);
      if (refill !== undefined) return this.#checkAfterRefill(refill, check);
    }
    // Each part is taken from this node's lease when it can; the rest go to Redis in one step.
    // A rate unit is spent even if a later part refuses (as a refused call still counts as a
    // request); a call unit and a slot are given back to their lease then.
    const rateRemote = rate !== undefined && (rateLease === undefined || !rateLease.take());
    if (tokenLease !== undefined) tokenLease.used = true;
    const tokensRemote = tokens !== undefined && (tokenLease === undefined || tokenLease.drawn >= tokenLease.granted);
    const callsRemote = calls !== undefined && (callsLease === undefined || !callsLease.take());
    const slotRemote = slot !== undefined && (slotLease === undefined || !slotLease.take());
    if (!slotRemote && slotLease !== undefined && slot !== undefined) this.#leasedSlots.set(slot, slotLease);
    // Everything from this node's leases: admitted at once, no promise.
    if (!rateRemote && !tokensRemote && !callsRemote && !slotRemote) return admitted;
    return this.#checkRemote(check, waited, { rateLease, tokenLease, callsLease, slotLease, rateRemote, tokensRemote, callsRemote, slotRemote });
  }

  #checkAfterRefill(refill: Promise<void>, check: LimitCheck): Promise<LimitVerdict> {
    return refill.then(() => this.#check(check, true));
  }

  /** The parts of a check its leases did not cover, in one Redis step that also leases more of them. */
  #checkRemote(check: LimitCheck, waited: boolean, parts: LeasedParts): Promise<LimitVerdict> {
    const { now, rate, tokens, calls, slot } = check;
    const { rateLease, tokenLease, callsLease, slotLease, rateRemote, tokensRemote, callsRemote, slotRemote } = parts;
    // How much more to lease of each part that went remote (none after a wait, or while a refill is out).
    const more = (lease: Refillable | undefined, limit: number, first: number) =>
      lease !== undefined && !waited && lease.refill === undefined ? lease.nextSize(now, first, largestLease(limit)) : 0;
    const wantRate = rateRemote && rate !== undefined ? more(rateLease, rate.limit, unitLeaseSize(rate.limit)) : 0;
    const wantTokens = tokensRemote && tokens !== undefined && tokenLease !== undefined ? more(tokenLease, tokens.limit, tokenLeaseSize(tokens.limit, tokenLease.tokensPerCall)) : 0;
    const wantCalls = callsRemote && calls !== undefined ? more(callsLease, calls.limit, unitLeaseSize(calls.limit)) : 0;
    const wantSlots = slotRemote && slot !== undefined ? more(slotLease, slot.limit, unitLeaseSize(slot.limit)) : 0;
    const memberPrefix = wantSlots > 0 ? `${this.#memberPrefix}${(this.#leaseSequence += 1).toString(36)}:` : '';
    const remote: LimitCheck = {
      now,
      rate: rateRemote ? rate : undefined,
      tokens: tokensRemote ? tokens : undefined,
      calls: callsRemote ? calls : undefined,
      slot: slotRemote && slot !== undefined ? (wantSlots > 0 ? { ...slot, holder: memberPrefix } : slot) : undefined,
    };
    if (wantRate > 0) rateLease?.startRefill();
    if (wantTokens > 0) tokenLease?.startRefill();
    if (wantCalls > 0) callsLease?.startRefill();
    if (wantSlots > 0) slotLease?.startRefill();

    const endRefills = () => {
      if (wantRate > 0) rateLease?.endRefill();
      if (wantTokens > 0) tokenLease?.endRefill();
      if (wantCalls > 0) callsLease?.endRefill();
      if (wantSlots > 0) slotLease?.endRefill();
    };
    const undo = () => {
      if (!callsRemote && callsLease !== undefined) callsLease.free += 1;
      if (!slotRemote && slotLease !== undefined && slot !== undefined) {
        slotLease.free += 1;
        this.#leasedSlots.delete(slot);
      }
    };
    const settled = (answer: LeaseAnswer): LimitVerdict => {
      if (rateLease !== undefined) rateLease.free += answer.rate;
      if (tokenLease !== undefined) tokenLease.granted += answer.tokens;
      if (callsLease !== undefined) callsLease.free += answer.calls;
      if (wantSlots > 0 && slotLease !== undefined && slot !== undefined && answer.verdict.admitted) {
        slotLease.add(Array.from({ length: answer.slots + 1 }, (_unused, index) => `${memberPrefix}${index}`), 1, slot.leaseUntil);
        this.#leasedSlots.set(slot, slotLease);
      }
      if (!answer.verdict.admitted) undo();
      // Waiting checks go on once the units are in the lease.
      endRefills();
      return answer.verdict;
    };
    const failed = (error: unknown): never => {
      undo();
      endRefills();
      throw error;
    };
    if (wantRate + wantTokens + wantCalls + wantSlots === 0) {
      return this.#redis.check(remote).then((verdict) => settled({ verdict, rate: 0, tokens: 0, calls: 0, slots: 0 }), failed);
    }
    return this.#redis.checkLeasing(remote, { rate: wantRate, tokens: wantTokens, calls: wantCalls, slots: wantSlots }).then(settled, failed);
  }

  releaseSlot(slot: SlotHold): void | Promise<void> {
    const lease = this.#leasedSlots.get(slot);
    if (lease === undefined) return this.#redis.releaseSlot(slot);
    this.#leasedSlots.delete(slot);
    lease.free += 1;
    return undefined;
  }

  async renewSlots(slots: readonly SlotHold[], leaseUntil: number, now: number): Promise<void> {
    // Calls on leased slots are renewed through their lease's members: every member of every lease.
    const renewing: SlotHold[] = slots.filter((slot) => !this.#leasedSlots.has(slot));
    const leases = [...this.#slots].filter(([, lease]) => lease.leaseUntil > now);
    for (const [counter, lease] of leases) for (const member of lease.members) renewing.push({ counter, holder: member });
    if (renewing.length === 0) return;
    await this.#redis.renewSlots(renewing, leaseUntil, now);
    for (const [, lease] of leases) lease.leaseUntil = Math.max(lease.leaseUntil, leaseUntil);
  }

  add(counter: string, amount: number, expiresAt: number): void | Promise<void> {
    const lease = this.#tokens.get(counter);
    if (lease === undefined || lease.granted === 0) return this.#redis.add(counter, amount, expiresAt);
    const excess = lease.draw(amount);
    return excess > 0 ? this.#redis.add(counter, excess, expiresAt) : undefined;
  }

  seed(counter: string, value: number, expiresAt: number): Promise<void> {
    return this.#redis.seed(counter, value, expiresAt);
  }

  /** Gives every lease back (a refill still under way is not waited for: its units lapse). */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    const returning: Promise<void>[] = [];
    for (const [counter, lease] of this.#units) if (lease.free > 0) returning.push(this.#redis.giveBack(counter, lease.free));
    for (const [counter, lease] of this.#tokens) if (lease.granted > lease.drawn) returning.push(this.#redis.giveBack(counter, lease.granted - lease.drawn));
    // Admission has released its calls' slots before this: every member goes back.
    for (const [counter, lease] of this.#slots) for (const member of lease.members) returning.push(this.#redis.releaseSlot({ counter, holder: member }));
    this.#units.clear();
    this.#tokens.clear();
    this.#slots.clear();
    this.#leasedSlots.clear();
    const returned = Promise.allSettled(returning);
    await this.#redis.close();
    await returned;
  }

  #unitLease(counter: string, limit: number, expiresAt: number, now: number): UnitLease | undefined {
    return windowLease(this.#units, counter, limit, now, expiresAt, UnitLease);
  }

  #tokenLease(counter: string, limit: number, expiresAt: number, now: number): TokenLease | undefined {
    return windowLease(this.#tokens, counter, limit, now, expiresAt, TokenLease);
  }

  #slotLease(counter: string, now: number, leaseUntil: number): SlotLease {
    let lease = this.#slots.get(counter);
    if (lease !== undefined && lease.refill === undefined && lease.stale(now, leaseUntil)) {
      // Renewals failed (Redis away, or this process stalled): its free slots may be others' by
      // now. They go back; calls on the others keep them until they lapse; a new lease starts.
      const failed = (error: unknown) => this.#log('stale leased slots not given back (they lapse)', error);
      for (const member of lease.members.splice(0, lease.free)) this.#redis.releaseSlot({ counter, holder: member }).catch(failed);
      lease = undefined;
    }
    if (lease === undefined) {
      lease = new SlotLease();
      this.#slots.set(counter, lease);
    }
    return lease;
  }

  /** The idle tick: leased units that stayed unused since the last tick go back to Redis. */
  #giveBackIdle(): void {
    const now = this.#now();
    const failed = (error: unknown) => this.#log('unused leased limits not given back (they lapse with their window or lease)', error);
    for (const [counter, lease] of this.#units) {
      if (lease.expiresAt <= now || (!lease.touched && lease.free === 0 && lease.refill === undefined)) {
        this.#units.delete(counter);
        continue;
      }
      lease.touched = false;
      if (lease.refill !== undefined) continue;
      if (lease.lowWater > 0) {
        lease.free -= lease.lowWater;
        this.#redis.giveBack(counter, lease.lowWater).catch(failed);
      }
      lease.lowWater = lease.free;
    }
    for (const [counter, lease] of this.#tokens) {
      if (lease.expiresAt <= now || (!lease.used && lease.granted === 0 && lease.refill === undefined)) {
        this.#tokens.delete(counter);
        continue;
      }
      if (!lease.used && lease.refill === undefined && lease.granted > 0) {
        this.#redis.giveBack(counter, lease.granted - lease.drawn).catch(failed);
        lease.granted = 0;
        lease.drawn = 0;
      }
      lease.used = false;
    }
    for (const [counter, lease] of this.#slots) {
      if (lease.refill !== undefined) continue;
      for (let index = 0; index < lease.lowWater; index += 1) {
        const member = lease.members.pop();
        if (member !== undefined) this.#redis.releaseSlot({ counter, holder: member }).catch(failed);
      }
      lease.free -= lease.lowWater;
      lease.lowWater = lease.free;
      if (lease.members.length === 0) this.#slots.delete(counter);
    }
  }
}

/** A check's leases (undefined: not leased) and which of its parts they did not cover. */
interface LeasedParts {
  readonly rateLease: UnitLease | undefined;
  readonly tokenLease: TokenLease | undefined;
  readonly callsLease: UnitLease | undefined;
  readonly slotLease: SlotLease | undefined;
  readonly rateRemote: boolean;
  readonly tokensRemote: boolean;
  readonly callsRemote: boolean;
  readonly slotRemote: boolean;
}

/**
 * The lease of a counter's window, made when there is none or the one held is of an ended window.
 * (The lease class rather than a closure making one: this runs for every part of every check.)
 */
function windowLease<Lease extends { readonly expiresAt: number }>(
  leases: Map<string, Lease>,
  counter: string,
  limit: number,
  now: number,
  expiresAt: number,
  LeaseOfWindow: new (expiresAt: number) => Lease,
): Lease | undefined {
  if (!isLeased(limit)) return undefined;
  let lease = leases.get(counter);
  // A lease of a window that ended is worth nothing (its counter expired with it).
  if (lease === undefined || lease.expiresAt <= now) {
    lease = new LeaseOfWindow(expiresAt);
    leases.set(counter, lease);
  }
  return lease;
}
