import type { LimitCheck, Limiter, LimitVerdict, SlotHold } from '../core/limits/limiter.ts';

interface Counter {
  value: number;
  expiresAt: number;
}

/**
 * The Limiter of a single-node platform (no REDIS_URL): counters and slots in this process's
 * memory. A check awaits nothing, so it is atomic without locks. Counters are lost on restart
 * (Admission re-seeds token windows from the usage ledger); slots die with the process anyway.
 */
export class InProcessLimiter implements Limiter {
  readonly #counters = new Map<string, Counter>();
  /** Slot sets: holder -> lease end. */
  readonly #slots = new Map<string, Map<string, number>>();
  #checksSinceSweep = 0;

  async check(check: LimitCheck): Promise<LimitVerdict> {
    const now = check.now;
    this.#sweepNowAndThen(now);
    if (check.rate !== undefined) {
      if (this.#read(check.rate.counter, now) >= check.rate.limit) return { admitted: false, refusedBy: 'rate' };
      this.#increment(check.rate.counter, 1, check.rate.expiresAt, now);
    }
    if (check.tokens !== undefined && this.#read(check.tokens.counter, now) >= check.tokens.limit) return { admitted: false, refusedBy: 'tokens' };
    if (check.calls !== undefined && this.#read(check.calls.counter, now) >= check.calls.limit) return { admitted: false, refusedBy: 'calls' };
    if (check.slot !== undefined) {
      // Lapsed holders only matter when they would refuse a call: swept then, not on every check.
      let holders = this.#holders(check.slot.counter);
      if (holders.size >= check.slot.limit) holders = this.#liveHolders(check.slot.counter, now);
      if (holders.size >= check.slot.limit) return { admitted: false, refusedBy: 'slot' };
      holders.set(check.slot.holder, check.slot.leaseUntil);
    }
    if (check.calls !== undefined) this.#increment(check.calls.counter, 1, check.calls.expiresAt, now);
    return { admitted: true };
  }

  async releaseSlot(slot: SlotHold): Promise<void> {
    const holders = this.#slots.get(slot.counter);
    holders?.delete(slot.holder);
    if (holders?.size === 0) this.#slots.delete(slot.counter);
  }

  async renewSlots(slots: readonly SlotHold[], leaseUntil: number, now: number): Promise<void> {
    for (const slot of slots) {
      const holders = this.#liveHolders(slot.counter, now);
      if (holders.has(slot.holder)) holders.set(slot.holder, leaseUntil);
    }
  }

  async add(counter: string, amount: number, expiresAt: number): Promise<void> {
    this.#increment(counter, amount, expiresAt, Date.now());
  }

  async seed(counter: string, value: number, expiresAt: number): Promise<void> {
    const now = Date.now();
    if (this.#live(counter, now) === undefined) this.#counters.set(counter, { value, expiresAt });
  }

  async close(): Promise<void> {
    this.#counters.clear();
    this.#slots.clear();
  }

  #read(counter: string, now: number): number {
    return this.#live(counter, now)?.value ?? 0;
  }

  #increment(counter: string, amount: number, expiresAt: number, now: number): void {
    const live = this.#live(counter, now);
    if (live === undefined) this.#counters.set(counter, { value: amount, expiresAt });
    else live.value += amount;
  }

  #live(counter: string, now: number): Counter | undefined {
    const entry = this.#counters.get(counter);
    if (entry !== undefined && entry.expiresAt <= now) {
      this.#counters.delete(counter);
      return undefined;
    }
    return entry;
  }

  #holders(counter: string): Map<string, number> {
    let holders = this.#slots.get(counter);
    if (holders === undefined) {
      holders = new Map();
      this.#slots.set(counter, holders);
    }
    return holders;
  }

  #liveHolders(counter: string, now: number): Map<string, number> {
    const holders = this.#holders(counter);
    for (const [holder, leaseUntil] of holders) if (leaseUntil <= now) holders.delete(holder);
    return holders;
  }

  /** Drops expired counters every thousand checks, so windows of keys never seen again do not pile up. */
  #sweepNowAndThen(now: number): void {
    this.#checksSinceSweep += 1;
    if (this.#checksSinceSweep < 1000) return;
    this.#checksSinceSweep = 0;
    for (const [name, counter] of this.#counters) if (counter.expiresAt <= now) this.#counters.delete(name);
  }
}
