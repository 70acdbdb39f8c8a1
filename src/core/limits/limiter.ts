/**
 * The shared counters behind key limits. Two implementations: in-process (one node) and Redis
 * (every node of a fleet, each step one atomic Lua script, so limits hold exactly across nodes).
 * Counter names come from Admission; names of one key share a `{keyId}` hash tag so a Redis
 * Cluster keeps them on one shard.
 */
export interface Limiter {
  /**
   * One atomic admission step, in this order: the rate counter is checked and counted (a request
   * refused by a later part still counts as a request); then the token and call quotas and the
   * concurrency slot are checked, and only when all pass are the call counted and the slot taken.
   */
  check(check: LimitCheck): Promise<LimitVerdict>;
  /** Frees a slot taken by `check`; freeing twice, or a lapsed slot, is harmless. */
  releaseSlot(slot: SlotHold): Promise<void>;
  /** Extends live slots to `leaseUntil`; a slot that already lapsed stays free (it may be another's now). */
  renewSlots(slots: readonly SlotHold[], leaseUntil: number, now: number): Promise<void>;
  /** Adds to a counter (tokens used), which expires at `expiresAt`. */
  add(counter: string, amount: number, expiresAt: number): Promise<void>;
  /** Sets a counter that does not exist yet (a quota window first seen, from the usage ledger). */
  seed(counter: string, value: number, expiresAt: number): Promise<void>;
  close(): Promise<void>;
}

export interface SlotHold {
  readonly counter: string;
  readonly holder: string;
}

/** A counted part of a check: its counter, its limit, and when the counter ends. */
export interface CounterPart {
  readonly counter: string;
  readonly limit: number;
  readonly expiresAt: number;
}

export interface LimitCheck {
  readonly now: number;
  /** Admitted while fewer than `limit` were counted in this window's counter. */
  readonly rate?: CounterPart | undefined;
  /** Refused once the counter has reached `limit` (the call that crossed it has completed). */
  readonly tokens?: CounterPart | undefined;
  /** Admitted while fewer than `limit` calls were counted; counted on admission. */
  readonly calls?: CounterPart | undefined;
  /** A slot among `limit`, held by `holder` until released or until `leaseUntil` passes unrenewed. */
  readonly slot?: { readonly counter: string; readonly limit: number; readonly holder: string; readonly leaseUntil: number } | undefined;
}

/** The part of a check that refused it. */
export type LimitRefusal = 'rate' | 'tokens' | 'calls' | 'slot';

export type LimitVerdict = { readonly admitted: true } | { readonly admitted: false; readonly refusedBy: LimitRefusal };
