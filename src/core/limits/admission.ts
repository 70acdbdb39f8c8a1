import { randomUUID } from 'node:crypto';
import type { UsageRecord } from '../usage/usage-record.ts';
import { creditExhausted, modelNotAllowed, quotaExhausted, rateLimited, tooManyConcurrent } from './admission-errors.ts';
import type { CreditAccounts, CreditHold } from './credit-accounts.ts';
import { concurrencyLimit, limitsModelCalls, priceOf, type KeyPolicy } from './key-policy.ts';
import type { LimitCheck, Limiter, SlotHold } from './limiter.ts';
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

const noTicket: AdmissionTicket = { finish: () => undefined };
/**
 * Policies seen at admission serve the usage and task paths for this long before being looked up
 * again: as long as the authenticator trusts its cache, so a policy change reaches both together.
 */
const policyCacheMs = 1_000;

/**
 * The one enforcement path of key limits (issue 8). Every authenticated request passes
 * `admitRequest` (rate); every model call `admitCall` (allowed models, credit, quotas, concurrency)
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
  readonly #policies = new Map<string, { readonly policy: KeyPolicy | undefined; readonly seenAt: number }>();
  /** Token windows this process has seeded from the ledger (by counter name). */
  readonly #seeded = new Map<string, Promise<void>>();
  readonly #liveSlots = new Map<string, SlotHold>();
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

  /** Every authenticated request: the key's requests per minute (1303 with Retry-After). */
  async admitRequest(key: AdmittedKey): Promise<void> {
    this.#remember(key);
    const limit = key.policy?.requestsPerMinute;
    if (limit === undefined) return;
    const now = this.#now();
    const window = minuteWindow(now);
    const verdict = await this.#limiter.check({ now, rate: { counter: counterName(key.id, 'rate', window.id), limit, expiresAt: window.resetsAt } });
    if (!verdict.admitted) throw rateLimited(limit, window.resetsAt, now);
  }

  /** A call of `model`: refused with 1220, 1113, 1304/1308 or 1302, else admitted until its ticket finishes. */
  async admitCall(key: AdmittedKey, model: string, charge: CallCharge): Promise<AdmissionTicket> {
    this.#remember(key);
    const policy = key.policy;
    if (policy === undefined || !limitsModelCalls(policy)) return noTicket;
    if (policy.models !== undefined && !policy.models.includes(model)) throw modelNotAllowed(model, policy.models);
    if (policy.credit !== undefined) {
      const balance = (await this.#credits.balance(key.id)) ?? 0;
      if (balance <= 0) throw creditExhausted(balance);
    }
    const now = this.#now();
    const check: { -readonly [Part in keyof LimitCheck]: LimitCheck[Part] } = { now };
    const quota = policy.quota;
    const window = quota === undefined ? undefined : quotaWindow(quota.period, now);
    if (quota !== undefined && window !== undefined) {
      if (quota.tokens !== undefined) {
        const counter = counterName(key.id, 'tokens', window.id);
        await this.#seedTokens(key.id, counter, window);
        check.tokens = { counter, limit: quota.tokens };
      }
      if (quota.calls !== undefined) check.calls = { counter: counterName(key.id, 'calls', window.id), limit: quota.calls, expiresAt: window.resetsAt };
    }
    const slotLimit = concurrencyLimit(policy, model);
    const slot = slotLimit === undefined ? undefined : { counter: counterName(key.id, 'slot', model), holder: randomUUID() };
    if (slot !== undefined && slotLimit !== undefined) check.slot = { ...slot, limit: slotLimit, leaseUntil: now + this.#slotLeaseMs };

    if (check.tokens !== undefined || check.calls !== undefined || check.slot !== undefined) {
      const verdict = await this.#limiter.check(check);
      if (!verdict.admitted) {
        if (verdict.refusedBy === 'slot') throw tooManyConcurrent(model, slotLimit ?? 0);
        if (quota !== undefined && window !== undefined) throw quotaExhausted(quota, verdict.refusedBy === 'tokens' ? 'tokens' : 'calls', window.resetsAt);
        throw new Error(`limiter refused on '${verdict.refusedBy}', which this call did not ask about`);
      }
    }
    if (slot !== undefined) this.#liveSlots.set(slot.holder, slot);
    return this.#ticket(key.id, policy, model, charge, slot);
  }

  /**
   * A completed call's usage (the usage recorder calls this for every record): adds its tokens to
   * the key's token quota window and charges its token prices. Never throws; failures are logged.
   */
  recordUsage(record: UsageRecord): void {
    const cached = this.#policies.get(record.keyId);
    if (cached !== undefined && this.#now() - cached.seenAt < policyCacheMs) {
      this.#applyUsage(record, cached.policy);
      return;
    }
    this.#policyOf(record.keyId).then(
      (policy) => this.#applyUsage(record, policy),
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
    this.#policies.delete(keyId);
  }

  async close(): Promise<void> {
    clearInterval(this.#renewTimer);
    const slots = [...this.#liveSlots.values()];
    this.#liveSlots.clear();
    await Promise.all(slots.map((slot) => this.#limiter.releaseSlot(slot.counter, slot.holder).catch(() => undefined)));
  }

  #ticket(keyId: string, policy: KeyPolicy, model: string, charge: CallCharge, slot: SlotHold | undefined): AdmissionTicket {
    let finished = false;
    return {
      finish: (succeeded) => {
        if (finished) return;
        finished = true;
        if (slot !== undefined) {
          this.#liveSlots.delete(slot.holder);
          this.#limiter.releaseSlot(slot.counter, slot.holder).catch((error: unknown) => this.#log(`slot of key ${keyId} not freed (it lapses)`, error));
        }
        const price = priceOf(policy, model);
        if (!succeeded || price === undefined || charge === 'none') return;
        const amount = Math.ceil((price.perCall ?? 0) + (charge === 'image' ? (price.perImage ?? 0) : 0));
        if (amount > 0) this.#credits.charge(keyId, amount).catch((error: unknown) => this.#log(`call of key ${keyId} not charged`, error));
      },
    };
  }

  #applyUsage(record: UsageRecord, policy: KeyPolicy | undefined): void {
    const tokens = record.promptTokens + record.completionTokens;
    const quota = policy?.quota;
    if (quota?.tokens !== undefined && tokens > 0) {
      const window = quotaWindow(quota.period, record.createdAt);
      const counter = counterName(record.keyId, 'tokens', window.id);
      const add = () => this.#limiter.add(counter, tokens, window.resetsAt);
      // Seeded windows are added to at once, so the next admission (on any node) already sees the tokens.
      const seeding = this.#seeded.get(counter);
      (seeding === undefined ? add() : seeding.then(add)).catch((error: unknown) =>
        this.#log(`tokens of key ${record.keyId} not counted against its quota`, error),
      );
    }
    const price = priceOf(policy, record.model);
    if (price === undefined) return;
    const amount = Math.ceil(record.promptTokens * (price.perPromptToken ?? 0) + record.completionTokens * (price.perCompletionToken ?? 0));
    if (amount > 0) this.#credits.charge(record.keyId, amount).catch((error: unknown) => this.#log(`tokens of key ${record.keyId} not charged`, error));
  }

  /**
   * The first time this process sees a token window it seeds the shared counter from the usage
   * ledger (set only when absent: another node, or an earlier run with Redis, may hold it already),
   * so a restart of a single-node platform does not forget the tokens used so far.
   */
  #seedTokens(keyId: string, counter: string, window: { startsAt: number; resetsAt: number }): Promise<void> {
    let seeding = this.#seeded.get(counter);
    if (seeding === undefined) {
      // Windows of past days pile up otherwise; forgetting them only costs a re-seed (a no-op set).
      if (this.#seeded.size >= 10_000) this.#seeded.clear();
      seeding = this.#tokensSince(keyId, window.startsAt).then((used) => this.#limiter.seed(counter, used, window.resetsAt));
      seeding.catch(() => this.#seeded.delete(counter));
      this.#seeded.set(counter, seeding);
    }
    return seeding;
  }

  async #policy(keyId: string): Promise<KeyPolicy | undefined> {
    const cached = this.#policies.get(keyId);
    if (cached !== undefined && this.#now() - cached.seenAt < policyCacheMs) return cached.policy;
    const policy = await this.#policyOf(keyId);
    this.#remember({ id: keyId, policy });
    return policy;
  }

  #remember(key: AdmittedKey): void {
    if (this.#policies.size >= 10_000) this.#policies.clear();
    this.#policies.set(key.id, { policy: key.policy, seenAt: this.#now() });
  }

  async #renewSlots(): Promise<void> {
    if (this.#liveSlots.size === 0) return;
    const now = this.#now();
    try {
      await this.#limiter.renewSlots([...this.#liveSlots.values()], now + this.#slotLeaseMs, now);
    } catch (error) {
      this.#log('concurrency slots not renewed', error);
    }
  }
}

/** Counter names share the key id as a hash tag, so a Redis Cluster keeps one key's counters together. */
function counterName(keyId: string, kind: 'rate' | 'tokens' | 'calls' | 'slot', part: string): string {
  return `{${keyId}}:${kind}:${part}`;
}
