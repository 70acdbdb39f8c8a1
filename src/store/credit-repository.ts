import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { CreditAccounts, CreditHold } from '../core/limits/credit-accounts.ts';
import type { Database } from './database.ts';
import type { DatabaseSchema } from './database-schema.ts';

/** A hold never tied to a task (its node died between hold and submit) is given back after this. */
const orphanHoldMs = 10 * 60_000;

/**
 * Prepaid credit in the database (tables `key_credits`, `credit_holds`, migration 0008). Every
 * change of a balance is one conditional UPDATE, or a transaction whose first statement moves a
 * hold out of `held`: on PostgreSQL a second node doing the same waits for the row and then
 * finds it no longer held, so a hold is settled or released exactly once.
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

  /** Sets the spendable balance (an operator's top-up or correction); open holds stay as they are. */
  async setBalance(keyId: string, balance: number): Promise<void> {
    const now = Date.now();
    await this.#database.db
      .insertInto('key_credits')
      .values({ key_id: keyId, balance, updated_at: now })
      .onConflict((conflict) => conflict.column('key_id').doUpdateSet({ balance, updated_at: now }))
      .execute();
  }

  /** The credit held for work not finished yet. */
  async held(keyId: string): Promise<number> {
    const row = await this.#database.db
      .selectFrom('credit_holds')
      .select((builder) => builder.fn.sum<number | string | null>('amount').as('total'))
      .where('key_id', '=', keyId)
      .where('state', '=', 'held')
      .executeTakeFirstOrThrow();
    return Number(row.total ?? 0);
  }

  async charge(keyId: string, amount: number): Promise<void> {
    await this.#database.db
      .updateTable('key_credits')
      .set({ balance: sql<number>`balance - ${amount}`, updated_at: Date.now() })
      .where('key_id', '=', keyId)
      .execute();
  }

  async hold(keyId: string, model: string, amount: number): Promise<CreditHold | undefined> {
    const id = randomUUID();
    const held = await this.#database.db.transaction().execute(async (transaction) => {
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
        .values({ id, key_id: keyId, task_id: null, model, amount, state: 'held', created_at: now, updated_at: now })
        .execute();
      return true;
    });
    if (!held) return undefined;
    return {
      id,
      attach: async (taskId) => {
        await this.#database.db.updateTable('credit_holds').set({ task_id: taskId, updated_at: Date.now() }).where('id', '=', id).execute();
      },
      release: async () => {
        await this.#finish(id, 'released');
      },
    };
  }

  async reconcile(now: number): Promise<{ settled: number; released: number }> {
    const ended = await this.#database.db
      .selectFrom('credit_holds')
      .innerJoin('tasks', 'tasks.id', 'credit_holds.task_id')
      .select(['credit_holds.id as id', 'tasks.status as status'])
      .where('credit_holds.state', '=', 'held')
      .where('tasks.state', '=', 'done')
      .limit(1000)
      .execute();
    const orphans = await this.#database.db
      .selectFrom('credit_holds')
      .select('id')
      .where('state', '=', 'held')
      .where('task_id', 'is', null)
      .where('created_at', '<', now - orphanHoldMs)
      .limit(1000)
      .execute();
    let settled = 0;
    let released = 0;
    for (const hold of ended) {
      const outcome = hold.status === 'SUCCESS' ? 'settled' : 'released';
      if (await this.#finish(hold.id, outcome)) {
        if (outcome === 'settled') settled += 1;
        else released += 1;
      }
    }
    for (const hold of orphans) if (await this.#finish(hold.id, 'released')) released += 1;
    return { settled, released };
  }

  /**
   * Moves a hold out of `held`, once: settling keeps the amount spent; releasing gives it back.
   * True when this call did it (false: another node or an earlier sweep already had).
   */
  async #finish(id: string, outcome: 'settled' | 'released'): Promise<boolean> {
    return this.#database.db.transaction().execute(async (transaction) => {
      const now = Date.now();
      const row = await transaction
        .updateTable('credit_holds')
        .set({ state: outcome, updated_at: now })
        .where('id', '=', id)
        .where('state', '=', 'held')
        .returning(['key_id', 'amount'])
        .executeTakeFirst();
      if (row === undefined) return false;
      if (outcome === 'released') await giveBack(transaction, row.key_id, Number(row.amount), now);
      return true;
    });
  }
}

async function giveBack(transaction: Transaction<DatabaseSchema>, keyId: string, amount: number, now: number): Promise<void> {
  await transaction
    .updateTable('key_credits')
    .set({ balance: sql<number>`balance + ${amount}`, updated_at: now })
    .where('key_id', '=', keyId)
    .execute();
}
