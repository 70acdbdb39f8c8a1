import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { PricedUsage } from '../billing/model-price.ts';
import type { PriceTable } from '../billing/price-table.ts';
import type { UsageRecord } from '../usage/usage-record.ts';
import { modelNotAllowed, quotaExhausted, rateLimited, tooManyConcurrent } from './admission-errors.ts';
import type { CreditAccounts } from './credit-accounts.ts';
import { CreditReservations, type CallCharges, type TaskReservation } from './credit-reservations.ts';
import { slotCounter, windowCounter } from './key-counters.ts';
import { concurrencyLimit, limitsModelCalls, type KeyPolicy } from './key-policy.ts';
import type { CounterPart, LimitCheck, Limiter, LimitRefusal, SlotHold } from './limiter.ts';
import { minuteWindow, quotaWindow, type LimitWindow } from './quota-window.ts';

/** The authenticated key as admission needs it. */
export interface AdmittedKey {
  readonly id: string;
  readonly policy: KeyPolicy | undefined;
}

/**
 * A call admitted against a model. `finish` once its response is over (frees its concurrency
 * slot); `settle` once its handler is done (keeps what its usage records cost from its credit
 * reservation, gives the rest back). Later calls of either do nothing; neither rejects.
 */
export interface AdmissionTicket {
  finish(): Promise<void>;
  settle(): Promise<void>;
  /** The record with its cost, charged against the reservation (never beyond it: the rest is not charged). */
  price(record: UsageRecord): UsageRecord;
}

export interface AdmissionOptions {
  readonly limiter: Limiter;
  readonly credits: CreditAccounts;
  readonly prices: PriceTable;
  /** A key's policy by id, for work that arrives without a request (usage records, task submissions). */
  readonly policyOf: (keyId: string) => Promise<KeyPolicy | undefined>;
  /** Tokens the usage ledger holds for a key since a time: the start of a token quota window this process first sees. */
  readonly tokensSince: (keyId: string, since: number) => Promise<number>;
  readonly now?: () => number;
  /** How long a concurrency slot or a credit reservation outlives its node: a crashed node's free after this (default 30 s). */
  readonly slotLeaseMs?: number;
  readonly log: (message: string, error: unknown) => void;
}

/**
 * Policies seen at admission serve the usage and task paths for this long before being looked up
 * again: as long as the authenticator trusts its cache, so a policy change reaches both together.
 */
const policyCacheMs = 1_000;

/**
 * Keys and token windows remembered at most; past it the least recently used is forgotten (a
 * re-read, or a re-seed that is a no-op set), so windows of past days do not pile up.
 */
const maxRemembered = 10_000;

/**
 * The one enforcement path of key limits. Every authenticated request passes `admitRequest`
 * (rate); every model call `admitCall` (allowed models, credit, quotas, concurrency; on routes
 * whose model is in the body also the request's rate, so a call is one limiter step) and ends
 * with its ticket's `finish` and `settle`; completed calls' usage comes back through
 * `recordUsage` (token quotas); async work reserves credit through `reserveForTask` and settles
 * it in `taskEnded`. Keys without a policy limit nothing (their usage is still priced, for the
 * reports). Counters live in the Limiter (Redis across nodes), money in CreditAccounts.
 */
export class Admission {
  readonly #limiter: Limiter;
  readonly #credit: CreditReservations;
  readonly #policyOf: (keyId: string) => Promise<KeyPolicy | undefined>;
  readonly #tokensSince: (keyId: string, since: number) => Promise<number>;
  readonly #now: () => number;
  readonly #slotLeaseMs: number;
  readonly #log: (message: string, error: unknown) => void;
  /** Policies of keys seen lately, by key id. */
  readonly #policies = new LRUCache<string, { readonly policy: KeyPolicy | undefined; seenAt: number }>({ max: maxRemembered });
  /** Token windows this process has seeded (or is seeding) from the ledger, by counter name. */
  readonly #seeded = new LRUCache<string, Promise<void>>({ max: maxRemembered });
  /** Slots of calls under way, renewed until their call ends so that only a dead node's slots lapse. */
  readonly #liveSlots = new Set<SlotHold>();
  readonly #renewTimer: NodeJS.Timeout;

  constructor(options: AdmissionOptions) {
    this.#limiter = options.limiter;
    this.#policyOf = options.policyOf;
    this.#tokensSince = options.tokensSince;
    this.#now = options.now ?? Date.now;
    this.#slotLeaseMs = options.slotLeaseMs ?? 30_000;
    this.#log = options.log;
    this.#credit = new CreditReservations({ credits: options.credits, prices: options.prices, leaseMs: this.#slotLeaseMs, now: this.#now, log: this.#log });
    this.#renewTimer = setInterval(() => void this.#renewLeases(), Math.max(100, Math.floor(this.#slotLeaseMs / 3)));
    this.#renewTimer.unref();
  }

  /**
   * Whether the request is admitted without a check: its key has no rate limit and, for a model
   * call (`modelCall`), nothing that limits model calls. The key is remembered as by a check.
   * Most keys limit nothing, and this spares each of their requests a promise.
   */
  admitsAtOnce(key: AdmittedKey, modelCall: boolean): boolean {
    const policy = key.policy;
    if (policy !== undefined && (policy.requestsPerMinute !== undefined || (modelCall && limitsModelCalls(policy)))) return false;
    this.#remember(key);
    return true;
  }

  /** Every authenticated request whose rate no call check counts: the key's requests per minute (1303 with Retry-After). */
  async admitRequest(key: AdmittedKey): Promise<void> {
    this.#remember(key);
    const limit = key.policy?.requestsPerMinute;
    if (limit !== undefined) await this.#checkRate(key.id, limit);
  }

  /**
   * A call of `model`: refused with 1303 (when `countRate`: the request's rate check, folded into
   * this step), 1220, 1113, 1304/1308 or 1302, else admitted until its ticket finishes. `bound`:
   * the most the call can use, reserved from a key with credit (absent: the call reserves
   * nothing itself, its task does). Undefined when there is no ticket: the key limits nothing of
   * this call (at most its rate).
   */
  async admitCall(key: AdmittedKey, model: string, bound: (() => PricedUsage) | undefined, countRate: boolean): Promise<AdmissionTicket | undefined> {
    this.#remember(key);
    const policy = key.policy;
    if (policy === undefined) return undefined;
    const rateLimit = countRate ? policy.requestsPerMinute : undefined;
    if (!limitsModelCalls(policy)) {
      if (rateLimit !== undefined) await this.#checkRate(key.id, rateLimit);
      return undefined;
    }
    if (policy.models !== undefined && !policy.models.includes(model)) throw modelNotAllowed(model, policy.models);
    const reservation = policy.credit === undefined || bound === undefined ? undefined : await this.#credit.reserve(key.id, policy, model, bound());
    try {
      const slot = await this.#checkLimits(key.id, policy, model, rateLimit);
      const charges = reservation === undefined ? undefined : this.#credit.charges(key.id, reservation, () => this.#policies.get(key.id)?.policy);
      return this.#ticket(key.id, slot, charges);
    } catch (error) {
      if (reservation !== undefined) await this.#credit.release(key.id, reservation);
      throw error;
    }
  }

  /** The record priced at the prices in force now (a call without a ticket: no reservation to charge against). */
  priced(record: UsageRecord, policy: KeyPolicy | undefined): UsageRecord {
    return this.#credit.priced(record, policy);
  }

  /**
   * Credit for async work (image, video and chat tasks, agents' tasks): the task's most at the
   * prices of now, reserved until the task ends; 1113 when the balance does not cover it or the
   * model has no price. Undefined when the key has no credit.
   */
  async reserveForTask(submission: {
    readonly ownerKeyId: string;
    readonly model: string;
    readonly kind: string;
    readonly request: unknown;
  }): Promise<TaskReservation | undefined> {
    const policy = await this.#policy(submission.ownerKeyId);
    return policy?.credit === undefined ? undefined : this.#credit.reserveForTask(submission.ownerKeyId, policy, submission);
  }

  /**
   * A task ended: its reservation settles to what its usage record costs now (0 without one: a
   * failed task), and the record comes back with the cost charged, for the ledger. Never rejects:
   * a settlement that fails is logged, the record then charged nothing, and the reservation
   * released by the reconciler.
   */
  async taskEnded(task: { readonly id: string; readonly ownerKeyId: string }, record: UsageRecord | undefined): Promise<UsageRecord | undefined> {
    let policy: KeyPolicy | undefined;
    try {
      policy = await this.#policy(task.ownerKeyId);
    } catch (error) {
      this.#log(`key ${task.ownerKeyId}: the credit of task ${task.id} not settled (released later)`, error);
      return record === undefined ? undefined : { ...record, cost: 0 };
    }
    return this.#credit.taskEnded(task, record, policy);
  }

  /**
   * A completed call's usage (the usage recorder calls this for every record): adds its tokens to
   * the key's token quota window, in the background; failures are logged.
   */
  recordUsage(record: UsageRecord): void {
    // A key seen moments ago without a token quota has no window to add to.
    const known = this.#freshlySeen(record.keyId);
    if (known !== undefined && known.policy?.quota?.tokens === undefined) return;
    void this.#recordUsage(record);
  }

  async #recordUsage(record: UsageRecord): Promise<void> {
    let policy: KeyPolicy | undefined;
    try {
      policy = await this.#policy(record.keyId);
    } catch (error) {
      this.#log(`usage of key ${record.keyId} not counted against its limits`, error);
      return;
    }
    // A key without a policy has no quota to count against.
    if (policy === undefined) return;
    await this.#countTokens(record, policy);
  }

  /** Drops a key's cached policy (it was changed in this process). */
  forget(keyId: string): void {
    this.#policies.delete(keyId);
  }

  async close(): Promise<void> {
    clearInterval(this.#renewTimer);
    const slots = [...this.#liveSlots];
    this.#liveSlots.clear();
    this.#credit.close();
    await Promise.allSettled(slots.map((slot) => this.#limiter.releaseSlot(slot)));
  }

  async #checkRate(keyId: string, limit: number): Promise<void> {
    const now = this.#now();
    const rate = ratePart(keyId, limit, now);
    const verdict = await this.#limiter.check({ now, rate });
    if (!verdict.admitted) throw rateLimited(limit, rate.expiresAt, now);
  }

  /** Quotas, rate and concurrency in one limiter step; the slot taken, if any. */
  async #checkLimits(keyId: string, policy: KeyPolicy, model: string, rateLimit: number | undefined): Promise<SlotHold | undefined> {
    const quota = policy.quota;
    if (quota?.tokens !== undefined) await this.#seedTokens(keyId, quotaWindow(quota.period, this.#now()));
    const now = this.#now();
    const window = quota === undefined ? undefined : quotaWindow(quota.period, now);
    const part = (kind: 'tokens' | 'calls', limit: number | undefined, of: LimitWindow | undefined) =>
      limit === undefined || of === undefined ? undefined : { counter: windowCounter(keyId, kind, of), limit, expiresAt: of.resetsAt };
    const slotLimit = concurrencyLimit(policy, model);
    const check: LimitCheck = {
      now,
      rate: rateLimit === undefined ? undefined : ratePart(keyId, rateLimit, now),
      tokens: part('tokens', quota?.tokens, window),
      calls: part('calls', quota?.calls, window),
      slot:
        slotLimit === undefined
          ? undefined
          : { counter: slotCounter(keyId, model), holder: randomUUID(), limit: slotLimit, leaseUntil: now + this.#slotLeaseMs },
    };
    if (check.rate !== undefined || check.tokens !== undefined || check.calls !== undefined || check.slot !== undefined) {
      const verdict = await this.#limiter.check(check);
      if (!verdict.admitted) throw refusal(verdict.refusedBy, check, policy, model);
    }
    if (check.slot !== undefined) this.#liveSlots.add(check.slot);
    return check.slot;
  }

  /** The ticket of an admitted call: its slot freed at `finish`, its reservation's charges settled at `settle`. */
  #ticket(keyId: string, slot: SlotHold | undefined, charges: CallCharges | undefined): AdmissionTicket {
    let finished = false;
    return {
      finish: async () => {
        if (finished || slot === undefined) return;
        finished = true;
        this.#liveSlots.delete(slot);
        await this.#logFailure(keyId, 'slot not freed (it lapses)', () => this.#limiter.releaseSlot(slot));
      },
      settle: async () => charges?.settle(),
      price: (record) => (charges === undefined ? this.priced(record, this.#policies.get(keyId)?.policy) : charges.price(record)),
    };
  }

  /** Adds a record's tokens to its window's counter, once the window is seeded (a seed after the add would be lost). */
  async #countTokens(record: UsageRecord, policy: KeyPolicy): Promise<void> {
    const quota = policy.quota;
    const tokens = record.promptTokens + record.completionTokens;
    if (quota?.tokens === undefined || tokens <= 0) return;
    const window = quotaWindow(quota.period, record.createdAt);
    const counter = windowCounter(record.keyId, 'tokens', window);
    await this.#logFailure(record.keyId, 'tokens not counted against the quota', async () => {
      await this.#seeded.get(counter);
      await this.#limiter.add(counter, tokens, window.resetsAt);
    });
  }

  /** Runs bookkeeping a request does not wait on: a failure is logged, never thrown. */
  async #logFailure(keyId: string, failure: string, step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (error) {
      this.#log(`key ${keyId}: ${failure}`, error);
    }
  }

  /**
   * The first time this process sees a token window it seeds the shared counter from the usage
   * ledger (set only when absent: another node, or an earlier run with Redis, may hold it already),
   * so a restart of a single-node platform does not forget the tokens used so far.
   */
  async #seedTokens(keyId: string, window: LimitWindow): Promise<void> {
    const counter = windowCounter(keyId, 'tokens', window);
    let seeding = this.#seeded.get(counter);
    if (seeding === undefined) {
      seeding = this.#tokensSince(keyId, window.startsAt).then((used) => this.#limiter.seed(counter, used, window.resetsAt));
      this.#seeded.set(counter, seeding);
      // A failed seeding is tried again by the next call.
      seeding.catch(() => {
        if (this.#seeded.get(counter) === seeding) this.#seeded.delete(counter);
      });
    }
    await seeding;
  }

  async #policy(keyId: string): Promise<KeyPolicy | undefined> {
    const known = this.#freshlySeen(keyId);
    if (known !== undefined) return known.policy;
    const policy = await this.#policyOf(keyId);
    this.#remember({ id: keyId, policy });
    return policy;
  }

  /** The key's remembered policy while it is fresh (seen within policyCacheMs). */
  #freshlySeen(keyId: string): { readonly policy: KeyPolicy | undefined } | undefined {
    const known = this.#policies.get(keyId);
    return known !== undefined && this.#now() - known.seenAt < policyCacheMs ? known : undefined;
  }

  #remember(key: AdmittedKey): void {
    const known = this.#policies.get(key.id, readAsIs);
    // The same policy seen again (every request of a key): its entry is renewed in place.
    if (known !== undefined && known.policy === key.policy) known.seenAt = this.#now();
    else this.#policies.set(key.id, { policy: key.policy, seenAt: this.#now() });
  }

  async #renewLeases(): Promise<void> {
    const renewSlots = async () => {
      if (this.#liveSlots.size === 0) return;
      const now = this.#now();
      await this.#limiter
        .renewSlots([...this.#liveSlots], now + this.#slotLeaseMs, now)
        .catch((error: unknown) => this.#log('concurrency slots not renewed', error));
    };
    await Promise.all([renewSlots(), this.#credit.renew()]);
  }
}

/** lru-cache's `get` with its defaults: given, so that it does not make an empty options object at every request. */
const readAsIs = Object.freeze({});

/** The rate counter of a key for the minute of `now`. */
function ratePart(keyId: string, limit: number, now: number): CounterPart {
  const window = minuteWindow(now);
  return { counter: windowCounter(keyId, 'rate', window), limit, expiresAt: window.resetsAt };
}

/** The error of a call the limiter refused, from the part that refused it. */
function refusal(refusedBy: LimitRefusal, check: LimitCheck, policy: KeyPolicy, model: string): Error {
  const { now, rate, tokens, calls, slot } = check;
  if (refusedBy === 'rate' && rate !== undefined) return rateLimited(rate.limit, rate.expiresAt, now);
  if (refusedBy === 'slot' && slot !== undefined) return tooManyConcurrent(model, slot.limit);
  const quota = policy.quota;
  if (refusedBy === 'tokens' && tokens !== undefined && quota !== undefined) return quotaExhausted(quota, 'tokens', tokens.expiresAt);
  if (refusedBy === 'calls' && calls !== undefined && quota !== undefined) return quotaExhausted(quota, 'calls', calls.expiresAt);
  return new Error(`limiter refused on '${refusedBy}', which this call did not ask about`);
}
