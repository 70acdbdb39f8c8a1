import { costOf, type PricedUsage } from '../billing/model-price.ts';
import { microsNumber } from '../billing/money-amount.ts';
import type { PriceTable } from '../billing/price-table.ts';
import { taskBound } from '../billing/usage-bound.ts';
import type { UsageRecord } from '../usage/usage-record.ts';
import { creditExhausted, modelNotPriced } from './admission-errors.ts';
import type { CreditAccounts } from './credit-accounts.ts';
import type { KeyPolicy } from './key-policy.ts';

/** A call's reservation: what was taken off the balance before it ran. */
export interface CallReservation {
  readonly id: string;
  readonly amount: number;
}

/** A call's charges against its reservation: each usage record priced and charged, then one settlement. */
export interface CallCharges {
  /** The record with its cost, charged against the reservation (never beyond it: the rest is not charged). */
  price(record: UsageRecord): UsageRecord;
  /** Keeps what was charged, gives the rest back; once, never rejects. */
  settle(): Promise<void>;
}

/** Credit reserved for an async task at submission; the task's end settles it (taskEnded). */
export interface TaskReservation {
  attach(taskId: string): Promise<void>;
  /** The submission failed: everything goes back. */
  release(): Promise<void>;
}

export interface CreditReservationsOptions {
  readonly credits: CreditAccounts;
  readonly prices: PriceTable;
  /** How long a reservation outlives its node: a dead node's are released after this. */
  readonly leaseMs: number;
  readonly now: () => number;
  readonly log: (message: string, error: unknown) => void;
}

/**
 * The one path by which calls and tasks spend a key's credit: the most a piece of work can cost,
 * at the prices in force, is reserved before it runs (1113 when the balance does not cover it or
 * nothing prices the model), and settled to what its usage records cost when it ends. The
 * reservations of calls under way on this node are renewed (`renew`) until they settle, so only
 * a dead node's lapse.
 */
export class CreditReservations {
  readonly #credits: CreditAccounts;
  readonly #prices: PriceTable;
  readonly #leaseMs: number;
  readonly #now: () => number;
  readonly #log: (message: string, error: unknown) => void;
  readonly #live = new Set<string>();

  constructor(options: CreditReservationsOptions) {
    this.#credits = options.credits;
    this.#prices = options.prices;
    this.#leaseMs = options.leaseMs;
    this.#now = options.now;
    this.#log = options.log;
  }

  /** The record priced at the prices in force now. */
  priced(record: UsageRecord, policy: KeyPolicy | undefined): UsageRecord {
    const price = this.#prices.priceFor(policy, record.model);
    return price === undefined ? record : { ...record, cost: microsNumber(costOf(record, price)) };
  }

  /** Reserves the most a call can cost at the key's prices of now, renewed until it settles. */
  async reserve(keyId: string, policy: KeyPolicy, model: string, bound: PricedUsage): Promise<CallReservation> {
    const price = this.#prices.priceFor(policy, model);
    if (price === undefined) throw modelNotPriced(model);
    const amount = microsNumber(costOf(bound, price));
    const id = await this.#credits.reserve(keyId, model, amount, this.#now() + this.#leaseMs);
    if (id === undefined) throw creditExhausted((await this.#credits.balance(keyId)) ?? 0, amount);
    this.#live.add(id);
    return { id, amount };
  }

  /** Gives a reservation back whole (its call was refused by a later check); never rejects. */
  async release(keyId: string, reservation: CallReservation): Promise<void> {
    this.#live.delete(reservation.id);
    try {
      await this.#credits.settle(reservation.id, 0);
    } catch (error) {
      this.#log(`key ${keyId}: reservation not released (released after its lease)`, error);
    }
  }

  /** The charges of a call against its reservation; `policy` gives the key's prices at each record. */
  charges(keyId: string, reservation: CallReservation, policy: () => KeyPolicy | undefined): CallCharges {
    let settled = false;
    let charged = 0;
    return {
      price: (record) => {
        const priced = this.priced(record, policy());
        // After the settlement, or beyond the reservation, nothing more is charged: the ledger says what was.
        const cost = settled ? 0 : Math.min(priced.cost ?? 0, reservation.amount - charged);
        charged += cost;
        return { ...priced, cost };
      },
      settle: async () => {
        if (settled) return;
        settled = true;
        try {
          await this.#credits.settle(reservation.id, charged);
          this.#live.delete(reservation.id);
        } catch (error) {
          this.#log(`key ${keyId}: reservation not settled (released after its lease)`, error);
        }
      },
    };
  }

  /** A task's reservation: its most at the prices of now, tied to the task once submitted. */
  async reserveForTask(
    keyId: string,
    policy: KeyPolicy,
    submission: { readonly model: string; readonly kind: string; readonly request: unknown },
  ): Promise<TaskReservation> {
    const reservation = await this.reserve(keyId, policy, submission.model, taskBound(submission.kind, submission.request));
    return {
      attach: async (taskId) => {
        await this.#credits.attach(reservation.id, taskId);
        this.#live.delete(reservation.id);
      },
      release: () => this.release(keyId, reservation),
    };
  }

  /**
   * A task ended: its reservation settles to what its usage record costs now (0 without one: a
   * failed task), and the record comes back with the cost charged, for the ledger. A key with
   * credit whose reservation is not found (or not settled) is charged nothing there either.
   * Never rejects; the reconciler releases what stays open.
   */
  async taskEnded(
    task: { readonly id: string; readonly ownerKeyId: string },
    record: UsageRecord | undefined,
    policy: KeyPolicy | undefined,
  ): Promise<UsageRecord | undefined> {
    const priced = record === undefined ? undefined : this.priced(record, policy);
    if (policy?.credit === undefined) return priced;
    let charged: number | undefined;
    try {
      charged = await this.#settleTask(task.id, priced?.cost ?? 0);
      if (charged === undefined) this.#log(`key ${task.ownerKeyId}: task ${task.id} ended without an open reservation`, undefined);
    } catch (error) {
      this.#log(`key ${task.ownerKeyId}: the credit of task ${task.id} not settled (released later)`, error);
    }
    return priced === undefined ? undefined : { ...priced, cost: charged ?? 0 };
  }

  /** Pushes the leases of this node's open reservations. */
  async renew(): Promise<void> {
    if (this.#live.size === 0) return;
    try {
      await this.#credits.renew([...this.#live], this.#now() + this.#leaseMs);
    } catch (error) {
      this.#log('credit reservations not renewed', error);
    }
  }

  /** This node stops: reservations of calls still under way lapse after their lease (the calls may yet end elsewhere). */
  close(): void {
    this.#live.clear();
  }

  /**
   * A task can end before its submitter has tied the reservation to it (a worker that finished
   * within the submission's last step): its settlement looks again a few times, briefly.
   */
  async #settleTask(taskId: string, cost: number): Promise<number | undefined> {
    for (let attempt = 0; ; attempt += 1) {
      const charged = await this.#credits.settleTask(taskId, cost);
      if (charged !== undefined || attempt >= 10) return charged;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
