import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { CreditAccounts } from '../core/limits/credit-accounts.ts';
import type { Database } from './database.ts';

/**
 * A task that ended this long ago with its reservation still open lost its settlement (the node
 * that ran it died in between, or the task ended by its deadline): the reservation is released.
 */
const unsettledTaskMs = 60_000;

/**
 * Prepaid credit in the database (tables `key_credits` and `credit_holds`, migrations 0008 and
 * 0012). Each change of a balance is one conditional statement or a transaction whose first
 * statement moves a reservation out of `held`: on PostgreSQL a second node doing the same waits
 * for the row lock and then finds the balance lower or the reservation no longer held; on SQLite
 * the write lock serializes them. So a balance never goes below zero and a reservation is settled
 * exactly once, on any number of nodes.
 */
export class CreditRepository implements CreditAccounts {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  async balance(keyId: string): Promise<number | undefined> {
    const row = await this.#database.db.selectFrom('key_credits').select('balance').where('key_id', '=', keyId).executeTakeFirst();
    return row === undefined ? undefined : Number(row.balance);
  }

  /** Sets the spendable balance (an operator's correction); open reservations stay as they are. */
  async setBalance(keyId: string, balance: number): Promise<void> {
    const now = Date.now();
    await this.#database.db
      .insertInto('key_credits')
      .values({ key_id: keyId, balance, updated_at: now })
      .onConflict((conflict) => conflict.column('key_id').doUpdateSet({ balance, updated_at: now }))
      .execute();
  }

  /** Adds to the balance in one statement (calls running meanwhile keep their reservations); the balance after. */
  async topUp(keyId: string, amount: number): Promise<number> {
    const now = Date.now();
    const row = await this.#database.db
      .insertInto('key_credits')
      .values({ key_id: keyId, balance: amount, updated_at: now })
      .onConflict((conflict) => conflict.column('key_id').doUpdateSet({ balance: sql<number>`key_credits.balance + ${amount}`, updated_at: now }))
      .returning('balance')
      .executeTakeFirstOrThrow();
    return Number(row.balance);
  }

  /** The credit reserved for calls and tasks not finished yet. */
  async held(keyId: string): Promise<number> {
    const row = await this.#database.db
      .selectFrom('credit_holds')
      .select((builder) => builder.fn.sum<number | string | null>('amount').as('total'))
      .where('key_id', '=', keyId)
      .where('state', '=', 'held')
      .executeTakeFirstOrThrow();
    return Number(row.total ?? 0);
  }

  async reserve(keyId: string, model: string, amount: number, leaseUntil: number): Promise<string | undefined> {
    const id = randomUUID();
    const reserved = await this.#database.db.transaction().execute(async (transaction) => {
      const now = Date.now();
      const taken = await transaction
        .updateTable('key_credits')
        .set({ balance: sql<number>`balance - ${amount}`, updated_at: now })
        .where('key_id', '=', keyId)
        .where('balance', '>=', amount)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 0) return false;
      await transaction
        .insertInto('credit_holds')
        .values({ id, key_id: keyId, task_id: null, model, amount, state: 'held', lease_until: leaseUntil, spent: 0, created_at: now, updated_at: now })
        .execute();
      return true;
    });
    return reserved ? id : undefined;
  }

  async attach(reservationId: string, taskId: string): Promise<void> {
    await this.#database.db
      .updateTable('credit_holds')
      .set({ task_id: taskId, lease_until: null, updated_at: Date.now() })
      .where('id', '=', reservationId)
      .where('state', '=', 'held')
      .execute();
  }

  async renew(reservationIds: readonly string[], leaseUntil: number): Promise<void> {
    if (reservationIds.length === 0) return;
    await this.#database.db
      .updateTable('credit_holds')
      .set({ lease_until: leaseUntil })
      .where('id', 'in', reservationIds)
      .where('state', '=', 'held')
      .where('task_id', 'is', null)
      .execute();
  }

  settle(reservationId: string, spent: number): Promise<number | undefined> {
    return this.#finish(reservationId, spent);
  }

  async settleTask(taskId: string, spent: number): Promise<number | undefined> {
    const row = await this.#database.db.selectFrom('credit_holds').select('id').where('task_id', '=', taskId).where('state', '=', 'held').executeTakeFirst();
    return row === undefined ? undefined : this.#finish(row.id, spent);
  }

  async reconcile(now: number): Promise<{ released: number }> {
    const lapsed = await this.#database.db
      .selectFrom('credit_holds')
      .select('id')
      .where('state', '=', 'held')
      .where('task_id', 'is', null)
      .where('lease_until', '<', now)
      .limit(1000)
      .execute();
    const unsettled = await this.#database.db
      .selectFrom('credit_holds')
      .innerJoin('tasks', 'tasks.id', 'credit_holds.task_id')
      .select('credit_holds.id as id')
      .where('credit_holds.state', '=', 'held')
      .where('tasks.state', '=', 'done')
      .where('tasks.updated_at', '<', now - unsettledTaskMs)
      .limit(1000)
      .execute();
    let released = 0;
    for (const { id } of [...lapsed, ...unsettled]) if ((await this.#finish(id, 0)) !== undefined) released += 1;
    return { released };
  }

  /**
   * Moves a reservation out of `held`, once, keeping `spent` (at most its amount) and giving the
   * rest back in the same transaction. The amount kept; undefined when another node or an earlier
   * sweep already had finished it.
   */
  async #finish(id: string, spent: number): Promise<number | undefined> {
    return this.#database.db.transaction().execute(async (transaction) => {
      const now = Date.now();
      const kept = Math.max(0, Math.floor(spent));
      const row = await transaction
        .updateTable('credit_holds')
        .set({
          state: kept > 0 ? 'settled' : 'released',
          spent: sql<number>`CASE WHEN amount < ${kept} THEN amount ELSE ${kept} END`,
          lease_until: null,
          updated_at: now,
        })
        .where('id', '=', id)
        .where('state', '=', 'held')
        .returning(['key_id', 'amount', 'spent'])
        .executeTakeFirst();
      if (row === undefined) return undefined;
      const rest = Number(row.amount) - Number(row.spent);
      if (rest > 0) {
        await transaction
          .updateTable('key_credits')
          .set({ balance: sql<number>`balance + ${rest}`, updated_at: now })
          .where('key_id', '=', row.key_id)
          .execute();
      }
      return Number(row.spent);
    });
  }
}
