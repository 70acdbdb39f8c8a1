/**
 * Leases of large limits (LeasingLimiter): what one node holds of one counter. The units are
 * counted in Redis when leased, so a node spends them without asking Redis and the fleet never
 * admits more than the limit; what a node holds unused, the others cannot have until it is
 * given back (after an idle tick, on close) or its window or lease ends.
 */

/** Limits below this are never leased: every check goes to Redis, exact to the unit. */
export const smallestLeasedLimit = 1_000;

/** Whether a limit is leased at all. */
export function isLeased(limit: number): boolean {
  return limit >= smallestLeasedLimit;
}

/**
 * The first lease of a rate, calls quota or slot limit: 64 units (one Redis step per 64 calls, a
 * few percent of what a step per call cost), at most 1% of the limit. 0: the limit is not leased.
 */
export function unitLeaseSize(limit: number): number {
  return limit < smallestLeasedLimit ? 0 : Math.min(64, largestLease(limit));
}

/** The first token headroom: about 64 calls' tokens at the node's recent rate, at most 1% of the limit. */
export function tokenLeaseSize(limit: number, tokensPerCall: number): number {
  return limit < smallestLeasedLimit ? 0 : Math.max(1, Math.min(largestLease(limit), Math.ceil(64 * tokensPerCall)));
}

/** No lease is larger than 1% of its limit: what one node may hold unused, the others miss. */
export function largestLease(limit: number): number {
  return Math.floor(limit / 100);
}

/** A lease spent faster than this is doubled next time (a busy node asks Redis ~10 times a second per counter at most). */
const briefLeaseMs = 100;
/** A lease that lasted longer than this is halved next time, down to its first size. */
const longLeaseMs = 1_000;

/**
 * One request for more units at a time per lease: checks that find the lease empty meanwhile
 * wait for it (a second request would take units from Redis that this node's own waiting calls
 * then miss), and then ask Redis for their own unit only if it brought none.
 */
export class Refillable {
  refill: Promise<void> | undefined;
  #refilled: (() => void) | undefined;
  /** The units asked for by the last refill, and when it was sent. */
  #size = 0;
  #refilledAt = 0;

  /**
   * How many units to ask for now: sized to the node's pace, so a busy node asks Redis about as
   * often whatever its traffic, between the first size and 1% of the limit.
   */
  nextSize(now: number, first: number, largest: number): number {
    const lasted = now - this.#refilledAt;
    if (this.#size === 0) this.#size = first;
    else if (lasted < briefLeaseMs) this.#size = Math.min(largest, this.#size * 2);
    else if (lasted > longLeaseMs) this.#size = Math.max(first, Math.floor(this.#size / 2));
    this.#size = Math.max(1, Math.min(largest, this.#size));
    this.#refilledAt = now;
    return this.#size;
  }

  startRefill(): void {
    this.refill = new Promise((resolve) => {
      this.#refilled = resolve;
    });
  }

  endRefill(): void {
    this.#refilled?.();
    this.refill = undefined;
    this.#refilled = undefined;
  }
}

/**
 * Leased units of a rate window or a calls quota window: spent one per call, never handed back
 * by calls. `lowWater` is the fewest free since the last idle tick: units that stayed free all
 * that time are not needed here, and go back.
 */
export class UnitLease extends Refillable {
  free = 0;
  lowWater = 0;
  touched = true;
  readonly expiresAt: number;
  constructor(expiresAt: number) {
    super();
    this.expiresAt = expiresAt;
  }

  take(): boolean {
    this.touched = true;
    if (this.free === 0) return false;
    this.free -= 1;
    if (this.free < this.lowWater) this.lowWater = this.free;
    return true;
  }
}

/**
 * Leased concurrency slots of one counter: members of the slot set named by this node, each held
 * until its lease end like a call's slot (renewed with the node's calls, so a crashed node's
 * lapse). A call takes one, and gives it back here when it ends.
 */
export class SlotLease extends Refillable {
  readonly members: string[] = [];
  free = 0;
  lowWater = 0;
  /** The lease end of the members, as last granted or renewed. */
  leaseUntil = 0;

  /** Whether the members' lease is past half its time: renewals are failing, they may lapse any moment. */
  stale(now: number, leaseUntil: number): boolean {
    return this.members.length > 0 && this.leaseUntil - now < (leaseUntil - now) / 2;
  }

  take(): boolean {
    if (this.free === 0) return false;
    this.free -= 1;
    if (this.free < this.lowWater) this.lowWater = this.free;
    return true;
  }

  add(members: readonly string[], inUse: number, leaseUntil: number): void {
    this.leaseUntil = this.members.length === 0 ? leaseUntil : Math.min(this.leaseUntil, leaseUntil);
    this.members.push(...members);
    this.free += members.length - inUse;
  }
}

/**
 * Token headroom: `granted` tokens added to the quota counter when leased; the node's calls are
 * admitted while `drawn` (their tokens, recorded here instead of in Redis) is below it. Once
 * drawn reaches granted, the excess is written and the lease ends; unused headroom is given back.
 */
export class TokenLease extends Refillable {
  granted = 0;
  drawn = 0;
  used = true;
  /** Tokens per call recorded here lately (a moving average), which sizes the next lease. */
  tokensPerCall = 256;
  readonly expiresAt: number;
  constructor(expiresAt: number) {
    super();
    this.expiresAt = expiresAt;
  }

  /** Records a call's tokens; answers the tokens to write to Redis when this ends the lease. */
  draw(amount: number): number {
    this.tokensPerCall = 0.9 * this.tokensPerCall + 0.1 * amount;
    this.drawn += amount;
    if (this.drawn < this.granted) return 0;
    const excess = this.drawn - this.granted;
    this.granted = 0;
    this.drawn = 0;
    return excess;
  }
}
