import type { CreditAccounts, CreditHold } from './credit-accounts.ts';

export interface BatchedCreditOptions {
  /** How long charges gather before one write per key (default 100 ms). */
  readonly flushMs?: number;
  /** How long a balance read from the store serves admissions on this node (default 1 s, as the policy cache). */
  readonly balanceTtlMs?: number;
  readonly now?: () => number;
  readonly log: (message: string, error: unknown) => void;
}

interface KnownBalance {
  /** The store's balance when read: it includes every charge written before, none pending or being written. */
  readonly balance: number | undefined;
  readonly readAt: number;
}

/**
 * Credit accounts as the request path uses them: a completed call's charges gather in memory and
 * reach the store as one UPDATE per key every `flushMs`, and the balance a call is admitted
 * against is read from the store at most once per `balanceTtlMs` per key, less what this node
 * charged since. Without this, every call of a key with credit cost a SELECT and two UPDATEs
 * (one committed write each on SQLite).
 *
 * What it changes: the store's balance trails this node's charges by up to `flushMs` (a crash
 * loses at most those, like the usage ledger's batch), and spending on other nodes, top-ups made
 * elsewhere and settled task holds are seen here within `balanceTtlMs`; credit was already
 * checked before a call and charged after it, so concurrent calls could always overshoot a
 * little. Holds (async work) go to the store at once, after this node's pending charges.
 */
export class BatchedCreditAccounts implements CreditAccounts {
  readonly #store: CreditAccounts;
  readonly #flushMs: number;
  readonly #balanceTtlMs: number;
  readonly #now: () => number;
  readonly #log: (message: string, error: unknown) => void;
  /** Charged on this node, not yet written. */
  #pending = new Map<string, number>();
  /** In the write under way. */
  #writing = new Map<string, number>();
  readonly #known = new Map<string, KnownBalance>();
  readonly #reading = new Map<string, Promise<number | undefined>>();
  /** Bumped whenever the store's balance of a key changes from here: a read that spans it is not kept. */
  readonly #generation = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;

  constructor(store: CreditAccounts, options: BatchedCreditOptions) {
    this.#store = store;
    this.#flushMs = options.flushMs ?? 100;
    this.#balanceTtlMs = options.balanceTtlMs ?? 1_000;
    this.#now = options.now ?? Date.now;
    this.#log = options.log;
  }

  async balance(keyId: string): Promise<number | undefined> {
    const known = this.#known.get(keyId);
    const stored = known !== undefined && this.#now() - known.readAt < this.#balanceTtlMs ? known.balance : await this.#read(keyId);
    return this.#spendable(keyId, stored);
  }

  /** The store's balance less what this node charged and has not written yet. */
  #spendable(keyId: string, stored: number | undefined): number | undefined {
    if (stored === undefined) return undefined;
    return stored - (this.#pending.get(keyId) ?? 0) - (this.#writing.get(keyId) ?? 0);
  }

  /** Gathers the charge for the next write; resolves at once. */
  async charge(keyId: string, amount: number): Promise<void> {
    this.#pending.set(keyId, (this.#pending.get(keyId) ?? 0) + amount);
    // While a write is under way its end schedules the next one.
    if (this.#flushing === undefined) this.#scheduleFlush();
  }

  async hold(keyId: string, model: string, amount: number): Promise<CreditHold | undefined> {
    // The store decides whether the balance covers the hold: it must hold this node's charges first.
    await this.#flushEverything();
    try {
      return await this.#store.hold(keyId, model, amount);
    } finally {
      this.#changed(keyId);
    }
  }

  async reconcile(now: number): Promise<{ readonly settled: number; readonly released: number }> {
    const outcome = await this.#store.reconcile(now);
    // Released holds give credit back to keys unknown here: read every balance again.
    if (outcome.released > 0) for (const keyId of this.#known.keys()) this.#changed(keyId);
    return outcome;
  }

  /** The key's balance or policy was changed by an operator on this node: read it again. */
  forget(keyId: string): void {
    this.#changed(keyId);
  }

  /** Writes every pending charge (one UPDATE per key); concurrent calls share the write. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#flushing ??= this.#write().finally(() => (this.#flushing = undefined));
    return this.#flushing;
  }

  /** Writes what is pending; the charges of a write that failed stay pending (logged). */
  close(): Promise<void> {
    return this.#flushEverything();
  }

  /** Waits for a write under way, then writes what came in meanwhile. */
  async #flushEverything(): Promise<void> {
    await this.#flushing;
    await this.flush();
  }

  async #write(): Promise<void> {
    if (this.#pending.size === 0) return;
    this.#writing = this.#pending;
    this.#pending = new Map();
    await Promise.all(
      [...this.#writing].map(async ([keyId, amount]) => {
        // A read already under way may see the store before or after this write: it is not kept.
        this.#bump(keyId);
        try {
          await this.#store.charge(keyId, amount);
          this.#writing.delete(keyId);
          this.#wrote(keyId, amount);
        } catch (error) {
          this.#writing.delete(keyId);
          // Kept for the next write: credit is money, a store that hiccups must not lose it.
          this.#pending.set(keyId, (this.#pending.get(keyId) ?? 0) + amount);
          this.#log(`charges of key ${keyId} not written yet; trying again`, error);
          // Whether the store applied it is unknown: read the balance again.
          this.#changed(keyId);
        }
      }),
    );
    this.#writing = new Map();
    // Charges that came in during the write, or a failed one: the next write, after a pause.
    if (this.#pending.size > 0) this.#scheduleFlush();
  }

  #scheduleFlush(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => void this.flush(), this.#flushMs);
    this.#timer.unref();
  }

  /** One read of a key's balance at a time; kept unless a write of its charges began meanwhile. */
  #read(keyId: string): Promise<number | undefined> {
    let reading = this.#reading.get(keyId);
    if (reading === undefined) {
      reading = this.#readAndKeep(keyId);
      const settled = () => this.#reading.delete(keyId);
      reading.then(settled, settled);
      this.#reading.set(keyId, reading);
    }
    return reading;
  }

  async #readAndKeep(keyId: string): Promise<number | undefined> {
    // A read while this key's charges are being written would count them twice or not at all: wait.
    while (this.#writing.has(keyId) && this.#flushing !== undefined) await this.#flushing;
    const generation = this.#generation.get(keyId) ?? 0;
    const balance = await this.#store.balance(keyId);
    if ((this.#generation.get(keyId) ?? 0) === generation) {
      if (this.#known.size >= 10_000) this.#known.clear();
      this.#known.set(keyId, { balance, readAt: this.#now() });
    }
    return balance;
  }

  /**
   * This node's charges reached the store: a balance read before the write (reads wait for writes
   * of their key) is that much lower now, so it is adjusted rather than read again; other nodes'
   * spending is still read once per balanceTtlMs.
   */
  #wrote(keyId: string, amount: number): void {
    const known = this.#known.get(keyId);
    this.#changed(keyId);
    if (known?.balance !== undefined) this.#known.set(keyId, { balance: known.balance - amount, readAt: known.readAt });
  }

  #changed(keyId: string): void {
    this.#known.delete(keyId);
    this.#bump(keyId);
  }

  #bump(keyId: string): void {
    if (this.#generation.size >= 10_000) this.#generation.clear();
    this.#generation.set(keyId, (this.#generation.get(keyId) ?? 0) + 1);
  }
}
