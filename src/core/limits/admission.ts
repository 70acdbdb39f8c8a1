import { randomUUID } from 'node:crypto';
import type { UsageRecord } from '../usage/usage-record.ts';
import { creditExhausted, modelNotAllowed, quotaExhausted, rateLimited, tooManyConcurrent } from './admission-errors.ts';
import type { CreditAccounts, CreditHold } from './credit-accounts.ts';
import { KeyCounters } from './key-counters.ts';
import { concurrencyLimit, limitsModelCalls, priceOf, type KeyPolicy } from './key-policy.ts';
import type { LimitCheck, Limiter, LimitRefusal, LimitVerdict, SlotHold } from './limiter.ts';
import { minuteWindow, quotaWindow } from './quota-window.ts';

/** The authenticated key as admission needs it. */
export interface AdmittedKey {
  readonly id: string;
  readonly policy: KeyPolicy | undefined;
}

/** What a completed sync call costs besides its tokens: its perCall price, plus perImage for an image. */
export type CallCharge = 'call' | 'image' | 'none';

/** A call admitted against a model: `finish` once when it ends (answered, failed or abandoned). */
export interface AdmissionTicket {
  /** Frees the call's concurrency slot and, when it succeeded, charges its price. Later calls do nothing. */
  finish(succeeded: boolean): void;
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
  readonly log?: (message: string, error: unknown) => void;
}

/** What admission keeps of a key it has seen: its policy (see policyCacheMs) and its counter names. */
interface SeenKey {
  policy: KeyPolicy | undefined;
  seenAt: number;
  readonly counters: KeyCounters;
}
/**
 * Policies seen at admission serve the usage and task paths for this long before being looked up
 * again: as long as the authenticator trusts its cache, so a policy change reaches both together.
 */
const policyCacheMs = 1_000;

/**
 * The one enforcement path of key limits (issue 8). Every authenticated request passes
 * `admitRequest` (rate); every model call `admitCall` (allowed models, credit, quotas, concurrency;
 * on routes whose model is in the body also the request's rate, so a call is one limiter step)
 * and ends with its ticket's `finish`; completed calls' usage comes back through `recordUsage`
 * (token quotas and token prices); async work holds credit through `holdForTask`. Keys without a
 * policy touch nothing. Counters live in the Limiter (Redis across nodes), money in CreditAccounts.
 */
export class Admission {
  readonly #limiter: Limiter;
  readonly #credits: CreditAccounts;
  readonly #policyOf: (keyId: string) => Promise<KeyPolicy | undefined>;
  readonly #tokensSince: (keyId: string, since: number) => Promise<number>;
  readonly #now: () => number;
  readonly #slotLeaseMs: number;
  readonly #log: (message: string, error: unknown) => void;
  readonly #seen = new Map<string, SeenKey>();
  /** Token windows this process has seeded from the ledger (by counter name): true once done. */
  readonly #seeded = new Map<string, Promise<void> | true>();
  /** Slot holders are this prefix and a sequence number: unique across nodes, cheaper than a UUID per call. */
  readonly #holderPrefix = `${randomUUID()}:`;
  #holderSequence = 0;
  /** Slots of calls under way (by object: a fresh holder string per call would be hashed twice). */
  readonly #liveSlots = new Set<SlotHold>();
  readonly #renewTimer: NodeJS.Timeout;

  constructor(options: AdmissionOptions) {
    this.#limiter = options.limiter;
    this.#credits = options.credits;
    this.#policyOf = options.policyOf;
    this.#tokensSince = options.tokensSince;
    this.#now = options.now ?? Date.now;
    this.#slotLeaseMs = options.slotLeaseMs ?? 30_000;
    this.#log = options.log ?? ((message, error) => console.error(message, error));
    this.#renewTimer = setInterval(() => void this.#renewSlots(), Math.max(100, Math.floor(this.#slotLeaseMs / 3)));
    this.#renewTimer.unref();
  }

  /**
   * Every authenticated request: the key's requests per minute (1303 with Retry-After). Undefined
   * when there is nothing to wait for: the key has no rate limit, or `countedByCall` (a route whose
   * call check, `admitCall` with `countRate`, counts the request in the same limiter step).
   */
  admitRequest(key: AdmittedKey, countedByCall = false): Promise<void> | undefined {
    const now = this.#now();
    const seen = this.#remember(key, now);
    const limit = key.policy?.requestsPerMinute;
    if (limit === undefined || countedByCall) return undefined;
    return this.#checkRate(seen, limit, now);
  }

  /**
   * A call of `model`: refused with 1303 (when `countRate`: the request's rate check, folded into
   * this step), 1220, 1113, 1304/1308 or 1302, else admitted until its ticket finishes. Undefined
   * when the key limits nothing of this call; the promise answers undefined when the call was only
   * counted against the rate (no ticket to finish). When nothing had to wait, the ticket comes at
   * once and a refusal is thrown at once.
   */
  admitCall(key: AdmittedKey, model: string, charge: CallCharge, countRate: boolean): AdmissionTicket | Promise<AdmissionTicket | undefined> | undefined {
    const now = this.#now();
    const seen = this.#remember(key, now);
    const policy = key.policy;
    if (policy === undefined) return undefined;
    const rateLimit = countRate ? policy.requestsPerMinute : undefined;
    if (limitsModelCalls(policy)) return this.#admitCall(seen, key.id, policy, model, charge, rateLimit);
    return rateLimit === undefined ? undefined : this.#checkRate(seen, rateLimit, now).then(() => undefined);
  }

  /**
   * A completed call's usage (the usage recorder calls this for every record): adds its tokens to
   * the key's token quota window and charges its token prices. Never throws; failures are logged.
   */
  recordUsage(record: UsageRecord): void {
    const cached = this.#seen.get(record.keyId);
    if (cached !== undefined && this.#now() - cached.seenAt < policyCacheMs) {
      this.#applyUsage(record, cached);
      return;
    }
    this.#applyUsageOnceKnown(record);
  }

  #applyUsageOnceKnown(record: UsageRecord): void {
    this.#policyOf(record.keyId).then(
      (policy) => this.#applyUsage(record, this.#remember({ id: record.keyId, policy }, this.#now())),
      (error: unknown) => this.#log(`usage of key ${record.keyId} not counted against its limits`, error),
    );
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
    this.#seen.delete(keyId);
  }

  async close(): Promise<void> {
    clearInterval(this.#renewTimer);
    const slots = [...this.#liveSlots];
    this.#liveSlots.clear();
    await Promise.allSettled(slots.map((slot) => this.#limiter.releaseSlot(slot)));
  }

  async #checkRate(seen: SeenKey, limit: number, now: number): Promise<void> {
    const rate = seen.counters.part('rate', minuteWindow(now), limit);
    const verdict = await this.#limiter.check({ now, rate, tokens: undefined, calls: undefined, slot: undefined });
    if (!verdict.admitted) throw rateLimited(limit, rate.expiresAt, now);
  }

  // The steps below run on every call of a limited key. Each is synchronous while nothing has to
  // wait (a balance read within its second, a window already seeded, a limiter that answers at
  // once: in process, or a lease), so such a call costs no promise; refusals are thrown (at once
  // or as a rejection). Where a step must wait, a method of its own makes the closure: a closure
  // in the step itself would give every call of it a context object (BENCHMARKS.md "bench:fleet").

  #admitCall(seen: SeenKey, keyId: string, policy: KeyPolicy, model: string, charge: CallCharge, rateLimit: number | undefined): AdmissionTicket | Promise<AdmissionTicket> {
    if (policy.models !== undefined && !policy.models.includes(model)) throw modelNotAllowed(model, policy.models);
    if (policy.credit === undefined) return this.#checkLimits(seen, keyId, policy, model, charge, rateLimit);
    const balance = this.#credits.balance(keyId);
    if (balance instanceof Promise) return this.#afterBalanceRead(balance, seen, keyId, policy, model, charge, rateLimit);
    return this.#checkFunded(balance, seen, keyId, policy, model, charge, rateLimit);
  }

  #afterBalanceRead(balance: Promise<number | undefined>, seen: SeenKey, keyId: string, policy: KeyPolicy, model: string, charge: CallCharge, rateLimit: number | undefined): Promise<AdmissionTicket> {
    return balance.then((value) => this.#checkFunded(value, seen, keyId, policy, model, charge, rateLimit));
  }

  #checkFunded(balance: number | undefined, seen: SeenKey, keyId: string, policy: KeyPolicy, model: string, charge: CallCharge, rateLimit: number | undefined): AdmissionTicket | Promise<AdmissionTicket> {
    if ((balance ?? 0) <= 0) throw creditExhausted(balance ?? 0);
    return this.#checkLimits(seen, keyId, policy, model, charge, rateLimit);
  }

  /** The quotas, the rate and the slot of an admitted model: one limiter step (after seeding a token window first seen). */
  #checkLimits(seen: SeenKey, keyId: string, policy: KeyPolicy, model: string, charge: CallCharge, rateLimit: number | undefined): AdmissionTicket | Promise<AdmissionTicket> {
    const quota = policy.quota;
    if (quota?.tokens !== undefined) {
      const window = quotaWindow(quota.period, this.#now());
      const seeding = this.#seedTokens(keyId, seen.counters.of('tokens', window), window);
      if (seeding !== true) return this.#afterSeeding(seeding, seen, keyId, policy, model, charge, rateLimit);
    }
    return this.#checkSeeded(seen, keyId, policy, model, charge, rateLimit);
  }

  #afterSeeding(seeding: Promise<void>, seen: SeenKey, keyId: string, policy: KeyPolicy, model: string, charge: CallCharge, rateLimit: number | undefined): Promise<AdmissionTicket> {
    return seeding.then(() => this.#checkSeeded(seen, keyId, policy, model, charge, rateLimit));
  }

  #checkSeeded(seen: SeenKey, keyId: string, policy: KeyPolicy, model: string, charge: CallCharge, rateLimit: number | undefined): AdmissionTicket | Promise<AdmissionTicket> {
    const now = this.#now();
    const counters = seen.counters;
    const quota = policy.quota;
    const window = quota === undefined ? undefined : quotaWindow(quota.period, now);
    const rate = rateLimit === undefined ? undefined : counters.part('rate', minuteWindow(now), rateLimit);
    const tokens = quota?.tokens === undefined || window === undefined ? undefined : counters.part('tokens', window, quota.tokens);
    const calls = quota?.calls === undefined || window === undefined ? undefined : counters.part('calls', window, quota.calls);
    const slotLimit = concurrencyLimit(policy, model);
    const slot =
      slotLimit === undefined
        ? undefined
        : { counter: counters.slot(model), holder: this.#holderPrefix + (this.#holderSequence += 1).toString(36), limit: slotLimit, leaseUntil: now + this.#slotLeaseMs };
    if (rate === undefined && tokens === undefined && calls === undefined && slot === undefined) return new CallTicket(this.#endCall, keyId, policy, model, charge, undefined);
    // Every part named, present or not: one object shape for every check keeps the limiter's code fast.
    const check: LimitCheck = { now, rate, tokens, calls, slot };
    const verdict = this.#limiter.check(check);
    if (verdict instanceof Promise) return this.#ticketOnceDecided(verdict, check, keyId, policy, model, charge);
    return this.#ticketFor(verdict, check, keyId, policy, model, charge);
  }

  #ticketOnceDecided(verdict: Promise<LimitVerdict>, check: LimitCheck, keyId: string, policy: KeyPolicy, model: string, charge: CallCharge): Promise<AdmissionTicket> {
    return verdict.then((decided) => this.#ticketFor(decided, check, keyId, policy, model, charge));
  }

  #ticketFor(verdict: LimitVerdict, check: LimitCheck, keyId: string, policy: KeyPolicy, model: string, charge: CallCharge): AdmissionTicket {
    if (!verdict.admitted) throw refusal(verdict.refusedBy, check, policy, model);
    const slot = check.slot;
    if (slot !== undefined) this.#liveSlots.add(slot);
    return new CallTicket(this.#endCall, keyId, policy, model, charge, slot);
  }

  /** The end of an admitted call (its ticket's finish, once): frees its slot and charges what it costs. */
  readonly #endCall = (ticket: CallTicket, succeeded: boolean): void => {
    const { keyId, policy, model, charge, slot } = ticket;
    if (slot !== undefined) {
      this.#liveSlots.delete(slot);
      this.#ifFails(this.#limiter.releaseSlot(slot), keyId, 'slot not freed (it lapses)');
    }
    const price = priceOf(policy, model);
    if (!succeeded || price === undefined || charge === 'none') return;
    const amount = Math.ceil((price.perCall ?? 0) + (charge === 'image' ? (price.perImage ?? 0) : 0));
    if (amount > 0) this.#ifFails(this.#credits.charge(keyId, amount), keyId, 'call not charged');
  };

  #applyUsage(record: UsageRecord, seen: SeenKey): void {
    const policy = seen.policy;
    const tokens = record.promptTokens + record.completionTokens;
    const quota = policy?.quota;
    if (quota?.tokens !== undefined && tokens > 0) {
      const window = quotaWindow(quota.period, record.createdAt);
      const counter = seen.counters.of('tokens', window);
      // Seeded windows are added to at once, so the next admission (on any node) already sees the tokens.
      const seeding = this.#seeded.get(counter);
      const adding =
        seeding === undefined || seeding === true
          ? this.#limiter.add(counter, tokens, window.resetsAt)
          : this.#addOnceSeeded(seeding, counter, tokens, window.resetsAt);
      this.#ifFails(adding, record.keyId, 'tokens not counted against the quota');
    }
    const price = priceOf(policy, record.model);
    if (price === undefined) return;
    const amount = Math.ceil(record.promptTokens * (price.perPromptToken ?? 0) + record.completionTokens * (price.perCompletionToken ?? 0));
    if (amount > 0) this.#ifFails(this.#credits.charge(record.keyId, amount), record.keyId, 'tokens not charged');
  }

  #addOnceSeeded(seeding: Promise<void>, counter: string, tokens: number, expiresAt: number): Promise<void> {
    return seeding.then(() => this.#limiter.add(counter, tokens, expiresAt));
  }

  /** Logs the failure of a step that had to wait (one that finished at once has nothing to report). */
  #ifFails(result: void | Promise<void>, keyId: string, failure: string): void {
    if (result instanceof Promise) result.catch((error: unknown) => this.#log(`key ${keyId}: ${failure}`, error));
  }

  /**
   * The first time this process sees a token window it seeds the shared counter from the usage
   * ledger (set only when absent: another node, or an earlier run with Redis, may hold it already),
   * so a restart of a single-node platform does not forget the tokens used so far. Returns the
   * seeding under way, or true once the window is seeded (callers need not wait then).
   */
  #seedTokens(keyId: string, counter: string, window: { startsAt: number; resetsAt: number }): Promise<void> | true {
    const seeded = this.#seeded.get(counter);
    if (seeded !== undefined) return seeded;
    // Windows of past days pile up otherwise; forgetting them only costs a re-seed (a no-op set).
    if (this.#seeded.size >= 10_000) this.#seeded.clear();
    const seeding = this.#tokensSince(keyId, window.startsAt).then((used) => this.#limiter.seed(counter, used, window.resetsAt));
    seeding.then(
      () => {
        if (this.#seeded.get(counter) === seeding) this.#seeded.set(counter, true);
      },
      () => this.#seeded.delete(counter),
    );
    this.#seeded.set(counter, seeding);
    return seeding;
  }

  async #policy(keyId: string): Promise<KeyPolicy | undefined> {
    const cached = this.#seen.get(keyId);
    if (cached !== undefined && this.#now() - cached.seenAt < policyCacheMs) return cached.policy;
    const policy = await this.#policyOf(keyId);
    this.#remember({ id: keyId, policy }, this.#now());
    return policy;
  }

  /** Updates what is kept of a key in place: no allocation on the request path once a key is known. */
  #remember(key: AdmittedKey, now: number): SeenKey {
    let seen = this.#seen.get(key.id);
    if (seen === undefined) {
      if (this.#seen.size >= 10_000) this.#seen.clear();
      seen = { policy: key.policy, seenAt: now, counters: new KeyCounters(key.id) };
      this.#seen.set(key.id, seen);
    } else {
      seen.policy = key.policy;
      seen.seenAt = now;
    }
    return seen;
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

/** An admitted call's ticket, a plain object rather than closures per call; finishes once. */
class CallTicket implements AdmissionTicket {
  readonly #end: (ticket: CallTicket, succeeded: boolean) => void;
  readonly keyId: string;
  readonly policy: KeyPolicy;
  readonly model: string;
  readonly charge: CallCharge;
  readonly slot: SlotHold | undefined;
  #finished = false;

  constructor(end: (ticket: CallTicket, succeeded: boolean) => void, keyId: string, policy: KeyPolicy, model: string, charge: CallCharge, slot: SlotHold | undefined) {
    this.#end = end;
    this.keyId = keyId;
    this.policy = policy;
    this.model = model;
    this.charge = charge;
    this.slot = slot;
  }

  finish(succeeded: boolean): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#end(this, succeeded);
  }
}
