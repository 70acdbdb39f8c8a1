import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatchedCreditAccounts } from '../../src/core/limits/batched-credit-accounts.ts';
import type { CreditAccounts, CreditHold } from '../../src/core/limits/credit-accounts.ts';

/** A store in memory that counts its round trips and can be told to fail the next charge. */
class CountingStore implements CreditAccounts {
  readonly balances = new Map<string, number>();
  reads = 0;
  writes = 0;
  failNextCharge = false;

  async balance(keyId: string): Promise<number | undefined> {
    this.reads += 1;
    return this.balances.get(keyId);
  }

  async charge(keyId: string, amount: number): Promise<void> {
    if (this.failNextCharge) {
      this.failNextCharge = false;
      throw new Error('the database went away');
    }
    this.writes += 1;
    this.balances.set(keyId, (this.balances.get(keyId) ?? 0) - amount);
  }

  async hold(keyId: string, _model: string, amount: number): Promise<CreditHold | undefined> {
    const balance = this.balances.get(keyId) ?? 0;
    if (balance < amount) return undefined;
    this.balances.set(keyId, balance - amount);
    return { id: 'hold', attach: async () => undefined, release: async () => undefined };
  }

  async reconcile(): Promise<{ settled: number; released: number }> {
    return { settled: 0, released: 0 };
  }
}

function open(options: { now?: () => number } = {}) {
  const store = new CountingStore();
  store.balances.set('k', 1000);
  const logged: string[] = [];
  const credits = new BatchedCreditAccounts(store, { flushMs: 60_000, log: (message) => logged.push(message), ...options });
  return { store, credits, logged };
}

describe('credit charges in batches (the hot path of keys with credit)', () => {
  it('many charges reach the store as one write per key, and the balance admission sees counts them at once', async () => {
    const { store, credits } = open();
    assert.equal(await credits.balance('k'), 1000);
    for (let index = 0; index < 100; index += 1) await credits.charge('k', 7);
    assert.equal(store.writes, 0, 'nothing written before the flush');
    assert.equal(await credits.balance('k'), 300, 'pending charges are taken off at once');
    assert.equal(store.reads, 1, 'the balance was read once for all those calls');
    await credits.flush();
    assert.equal(store.writes, 1);
    assert.equal(store.balances.get('k'), 300);
    assert.equal(await credits.balance('k'), 300, 'after the write: not counted twice');
    assert.equal(store.reads, 1, 'its own write does not need a read: the balance read before it is adjusted');
  });

  it('reads the store again once the balance is older than its time to live (other nodes spend too)', async () => {
    let now = 0;
    const { store, credits } = open({ now: () => now });
    await credits.balance('k');
    store.balances.set('k', 400); // another node's charges
    assert.equal(await credits.balance('k'), 1000, 'within the time to live');
    now = 1_000;
    assert.equal(await credits.balance('k'), 400);
    assert.equal(store.reads, 2);
  });

  it('keeps the charges of a failed write for the next one: credit is not lost', async () => {
    const { store, credits, logged } = open();
    await credits.charge('k', 50);
    store.failNextCharge = true;
    await credits.flush();
    assert.equal(store.balances.get('k'), 1000);
    assert.equal(logged.length, 1);
    assert.equal(await credits.balance('k'), 950, 'still counted here');
    await credits.close();
    assert.equal(store.balances.get('k'), 950);
  });

  it('writes pending charges before a hold, so the store judges the hold against them', async () => {
    const { store, credits } = open();
    await credits.charge('k', 900);
    assert.equal(await credits.hold('k', 'glm-image', 200), undefined, '1000 - 900 does not cover 200');
    assert.equal(store.balances.get('k'), 100);
    assert.ok(await credits.hold('k', 'glm-image', 100));
  });

  it('forget reads a top-up made by an operator at once', async () => {
    const { store, credits } = open();
    await credits.balance('k');
    store.balances.set('k', 5000);
    credits.forget('k');
    assert.equal(await credits.balance('k'), 5000);
  });

  it('a key without an account has no balance, pending charges or not', async () => {
    const { credits } = open();
    await credits.charge('none', 5);
    assert.equal(await credits.balance('none'), undefined);
    await credits.close();
  });
});
