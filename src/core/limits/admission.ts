import { randomUUID } from 'node:crypto';
import type { UsageRecord } from '../usage/usage-record.ts';
import { creditExhausted, modelNotAllowed, quotaExhausted, rateLimited, tooManyConcurrent } from './admission-errors.ts';
import type { CreditAccounts, CreditHold } from './credit-accounts.ts';
import { slotCounter, windowCounter } from './key-counters.ts';
import { concurrencyLimit, limitsModelCalls, priceOf, type KeyPolicy } from './key-policy.ts';
import type { CounterPart, LimitCheck, Limiter, LimitRefusal, SlotHold } from './limiter.ts';
import { minuteWindow, quotaWindow, type LimitWindow } from './quota-window.ts';

/** The authenticated key as admission needs it. */
export interface AdmittedKey {
  readonly id: string;
  readonly policy: KeyPolicy | undefined;
}

/** What a completed sync call costs besides its tokens: its perCall price, plus perImage for an image. */
export type CallCharge = 'call' | 'image' | 'none';

/** A call admitted against a model: `finish` once when it ends (answered, failed or abandoned). */
export interface AdmissionTicket {
  /** Frees the call's concurrency slot and, when it succeeded, charges its price. Later calls do nothing; never rejects. */
  finish(succeeded: boolean): Promise<void>;
}

export interface AdmissionOptions {
  readonly limiter: Limiter;
  readonly credits: CreditAccounts;
  /** A key's policy by id, for work that arrives without a request (usage records, task submissions). */
  readonly policyOf: (keyId: string) => Promise<KeyPolicy | undefined>;
  /** Tokens the usage ledger holds for a key since a time: the start of a token quota window this process first sees. */
  readonly tokensSince: (keyId: string, since: number) => Promise<number>;
  readonly now?: () => number;
  /** How long a concurrency slot outlives its node: a crashed node's slots free after this (default 30 s). */
  readonly slotLeaseMs?: number;
  readonly log: (message: string, error: unknown) => void;
}

/**
 * Policies seen at admission serve the usage and task paths for this long before being looked up
 * again: as long as the authenticator trusts its cache, so a policy change reaches both together.
 */
const policyCacheMs = 1_000;

/** Keys and token windows remembered at most; past it they are forgotten (a re-read or a no-op re-seed). */
const maxRemembered = 10_000;

/**
 * The one enforcement path of key limits. Every authenticated request passes `admitRequest`
 * (rate); every model call `admitCall` (allowed models, credit, quotas, concurrency; on routes
 * whose model is in the body also the request's rate, so a call is one limiter step) and ends
 * with its ticket's `finish`; completed calls' usage comes back through `recordUsage` (token
 * quotas and token prices); async work holds credit through `holdForTask`. Keys without a policy
 * touch nothing. Counters live in the Limiter (Redis across nodes), money in CreditAccounts.
 */
export class Admission {
  readonly #limiter: Limiter;
  readonly #credits: CreditAccounts;
  readonly #policyOf: (keyId: string) => Promise<KeyPolicy | undefined>;
  readonly #tokensSince: (keyId: string, since: number) => Promise<number>;
  readonly #now: () => number;
  readonly #slotLeaseMs: number;
  readonly #log: (message: string, error: unknown) => void;
  /** Policies of keys seen lately, by key id. */
  readonly #policies = new Map<string, { readonly policy: KeyPolicy | undefined; readonly seenAt: number }>();
  /** Token windows this process has seeded (or is seeding) from the ledger, by counter name. */
  readonly #seeded = new Map<string, Promise<void>>();
  /** Slots of calls under way, renewed until their call ends so that only a dead node's slots lapse. */
  readonly #liveSlots = new Set<SlotHold>();
  readonly #renewTimer: NodeJS.Timeout;

  constructor(options: AdmissionOptions) {
    this.#limiter = options.limiter;
    this.#credits = options.credits;
    this.#policyOf = options.policyOf;
    this.#tokensSince = options.tokensSince;
    this.#now = options.now ?? Date.now;
    this.#slotLeaseMs = options.slotLeaseMs ?? 30_000;
    this.#log = options.log;
    this.#renewTimer = setInterval(() => void this.#renewSlots(), Math.max(100, Math.floor(this.#slotLeaseMs / 3)));
    this.#renewTimer.unref();
  }

  /** Every authenticated request whose rate no call check counts: the key's requests per minute (1303 with Retry-After). */
  async admitRequest(key: AdmittedKey): Promise<void> {
    this.#remember(key);
    const limit = key.policy?.requestsPerMinute;
    if (limit !== undefined) await this.#checkRate(key.id, limit);
  }

  /**
   * A call of `model`: refused with 1303 (when `countRate`: the request's rate check, folded into
   * this step), 1220, 1113, 1304/1308 or 1302, else admitted until its ticket finishes. Undefined
   * when there is no ticket to finish: the key limits nothing of this call (at most its rate).
   */
  async admitCall(key: AdmittedKey, model: string, charge: CallCharge, countRate: boolean): Promise<AdmissionTicket | undefined> {
    this.#remember(key);
    const policy = key.policy;
    if (policy === undefined) return undefined;
    const rateLimit = countRate ? policy.requestsPerMinute : undefined;
    if (!limitsModelCalls(policy)) {
      if (rateLimit !== undefined) await this.#checkRate(key.id, rateLimit);
      return undefined;
    }
    if (policy.models !== undefined && !policy.models.includes(model)) throw modelNotAllowed(model, policy.models);
    if (policy.credit !== undefined) {
      const balance = (await this.#credits.balance(key.id)) ?? 0;
      if (balance <= 0) throw creditExhausted(balance);
    }
    const quota = policy.quota;
    if (quota?.tokens !== undefined) await this.#seedTokens(key.id, quotaWindow(quota.period, this.#now()));

    const now = this.#now();
    const window = quota === undefined ? undefined : quotaWindow(quota.period, now);
    const part = (kind: 'tokens' | 'calls', limit: number | undefined, of: LimitWindow | undefined) =>
      limit === undefined || of === undefined ? undefined : { counter: windowCounter(key.id, kind, of), limit, expiresAt: of.resetsAt };
    const slotLimit = concurrencyLimit(policy, model);
    const check: LimitCheck = {
      now,
      rate: rateLimit === undefined ? undefined : ratePart(key.id, rateLimit, now),
      tokens: part('tokens', quota?.tokens, window),
      calls: part('calls', quota?.calls, window),
      slot:
        slotLimit === undefined
          ? undefined
          : { counter: slotCounter(key.id, model), holder: randomUUID(), limit: slotLimit, leaseUntil: now + this.#slotLeaseMs },
    };
    if (check.rate !== undefined || check.tokens !== undefined || check.calls !== undefined || check.slot !== undefined) {
      const verdict = await this.#limiter.check(check);
      if (!verdict.admitted) throw refusal(verdict.refusedBy, check, policy, model);
    }
    const slot = check.slot;
    if (slot !== undefined) this.#liveSlots.add(slot);
    let finished = false;
    return {
      finish: async (succeeded) => {
        if (finished) return;
        finished = true;
        await this.#endCall(key.id, policy, model, charge, slot, succeeded);
      },
    };
  }

  /**
   * A completed call's usage (the usage recorder calls this for every record): adds its tokens to
   * the key's token quota window and charges its token prices. Never rejects; failures are logged.
   */
  async recordUsage(record: UsageRecord): Promise<void> {
    let policy: KeyPolicy | undefined;
    try {
      policy = await this.#policy(record.keyId);
    } catch (error) {
      this.#log(`usage of key ${record.keyId} not counted against its limits`, error);
      return;
    }
    // A key without a policy has no quota or prices to count against.
    if (policy === undefined) return;
    await Promise.all([this.#countTokens(record, policy), this.#chargeTokens(record, policy)]);
  }

  /**
   * Credit for async work (image and video tasks, agents' tasks): the price of one task at the
   * prices of now (perCall + perImage or perVideo), held until the task ends; 1113 when the
   * balance does not cover it. Undefined when the key has no credit or the work is free.
   */
  async holdForTask(submission: { readonly ownerKeyId: string; readonly model: string; readonly kind: string }): Promise<CreditHold | undefined> {
    const policy = await this.#policy(submission.ownerKeyId);
    if (policy?.credit === undefined) return undefined;
    const price = priceOf(policy, submission.model);
    const perItem = submission.kind === 'image' ? price?.perImage : submission.kind === 'video' ? price?.perVideo : undefined;
    const amount = Math.ceil((price?.perCall ?? 0) + (perItem ?? 0));
    if (amount === 0) return undefined;
    const hold = await this.#credits.hold(submission.ownerKeyId, submission.model, amount);
    if (hold === undefined) throw creditExhausted((await this.#credits.balance(submission.ownerKeyId)) ?? 0, amount);
    return hold;
  }

  /** Drops a key's cached policy (it was changed in this process). */
  forget(keyId: string): void {
    this.#policies.delete(keyId);
  }

  async close(): Promise<void> {
    clearInterval(this.#renewTimer);
    const slots = [...this.#liveSlots];
    this.#liveSlots.clear();
    await Promise.allSettled(slots.map((slot) => this.#limiter.releaseSlot(slot)));
  }

  async #checkRate(keyId: string, limit: number): Promise<void> {
    const now = this.#now();
    const rate = ratePart(keyId, limit, now);
    const verdict = await this.#limiter.check({ now, rate });
    if (!verdict.admitted) throw rateLimited(limit, rate.expiresAt, now);
  }

  /** The end of an admitted call: frees its slot and charges what it costs. */
  async #endCall(keyId: string, policy: KeyPolicy, model: string, charge: CallCharge, slot: SlotHold | undefined, succeeded: boolean): Promise<void> {
    const price = priceOf(policy, model);
    const amount =
      !succeeded || price === undefined || charge === 'none' ? 0 : Math.ceil((price.perCall ?? 0) + (charge === 'image' ? (price.perImage ?? 0) : 0));
    if (slot !== undefined) this.#liveSlots.delete(slot);
    await Promise.all([
      slot === undefined ? undefined : this.#logFailure(keyId, 'slot not freed (it lapses)', () => this.#limiter.releaseSlot(slot)),
      amount === 0 ? undefined : this.#logFailure(keyId, 'call not charged', () => this.#credits.charge(keyId, amount)),
    ]);
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

  async #chargeTokens(record: UsageRecord, policy: KeyPolicy): Promise<void> {
    const price = priceOf(policy, record.model);
    if (price === undefined) return;
    const amount = Math.ceil(record.promptTokens * (price.perPromptToken ?? 0) + record.completionTokens * (price.perCompletionToken ?? 0));
    if (amount > 0) await this.#logFailure(record.keyId, 'tokens not charged', () => this.#credits.charge(record.keyId, amount));
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
      // Windows of past days pile up otherwise; forgetting them only costs a re-seed (a no-op set).
      if (this.#seeded.size >= maxRemembered) this.#seeded.clear();
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
    const known = this.#policies.get(keyId);
    if (known !== undefined && this.#now() - known.seenAt < policyCacheMs) return known.policy;
    const policy = await this.#policyOf(keyId);
    this.#remember({ id: keyId, policy });
    return policy;
  }

  #remember(key: AdmittedKey): void {
    if (this.#policies.size >= maxRemembered && !this.#policies.has(key.id)) this.#policies.clear();
    this.#policies.set(key.id, { policy: key.policy, seenAt: this.#now() });
  }

  async #renewSlots(): Promise<void> {
    if (this.#liveSlots.size === 0) return;
    const now = this.#now();
    try {
      await this.#limiter.renewSlots([...this.#liveSlots], now + this.#slotLeaseMs, now);
    } catch (error) {
      this.#log('concurrency slots not renewed', error);
    }
  }
}

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
