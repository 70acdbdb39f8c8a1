/**
 * The shared counters behind key limits. Two implementations: in-process (one node) and Redis
 * (every node of a fleet; atomic Lua scripts), the latter leasing large limits (1000 and more) in
 * blocks to each node (src/limits/leasing-limiter.ts): never more admitted than a limit, but a
 * node may be refused units another node holds unused (at most 1% of the limit, or 64, per other
 * node, for a second or two). Counter names come from Admission; names of one key share a
 * `{keyId}` hash tag so a Redis Cluster keeps them on one shard.
 */
export interface Limiter {
  /**
   * One atomic admission step, in this order: the rate counter is checked and counted (a request
   * refused by a later part still counts as a request); then the token and call quotas and the
   * concurrency slot are checked, and only when all pass are the call counted and the slot taken.
   */
  check(check: LimitCheck): LimitVerdict | Promise<LimitVerdict>;
  /**
   * Frees a slot taken by `check`, given as the same object the check named (a limiter may keep
   * what it knows of a slot by that object); freeing twice, or a lapsed slot, is harmless.
   */
  releaseSlot(slot: SlotHold): void | Promise<void>;
  /** Extends live slots to `leaseUntil`; a slot that already lapsed stays free (it may be another's now). */
  renewSlots(slots: readonly SlotHold[], leaseUntil: number, now: number): Promise<void>;
  /** Adds to a counter (tokens used), which expires at `expiresAt`. */
  add(counter: string, amount: number, expiresAt: number): void | Promise<void>;
  /** Sets a counter that does not exist yet (a quota window first seen, from the usage ledger). */
  seed(counter: string, value: number, expiresAt: number): Promise<void>;
  close(): Promise<void>;
}

export interface SlotHold {
  readonly counter: string;
  readonly holder: string;
}

export interface LimitCheck {
  readonly now: number;
  /** Admitted while fewer than `limit` were counted in this window's counter. */
  readonly rate?: { readonly counter: string; readonly limit: number; readonly expiresAt: number } | undefined;
  /** Refused once the counter has reached `limit` (the call that crossed it has completed); the counter ends at `expiresAt`. */
  readonly tokens?: { readonly counter: string; readonly limit: number; readonly expiresAt: number } | undefined;
  /** Admitted while fewer than `limit` calls were counted; counted on admission. */
  readonly calls?: { readonly counter: string; readonly limit: number; readonly expiresAt: number } | undefined;
  /** A slot among `limit`, held by `holder` until released or until `leaseUntil` passes unrenewed. */
  readonly slot?: { readonly counter: string; readonly limit: number; readonly holder: string; readonly leaseUntil: number } | undefined;
}

/** The part of a check that refused it. */
export type LimitRefusal = 'rate' | 'tokens' | 'calls' | 'slot';

export type LimitVerdict = { readonly admitted: true } | { readonly admitted: false; readonly refusedBy: LimitRefusal };
