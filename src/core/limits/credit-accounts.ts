/**
 * Prepaid credit per key, in integer micro-units, kept in the database (money outlives a Redis
 * restart and is shared by every node). A balance changes only through reservations: one is taken
 * before a call or task runs, if the balance covers it, and settled once to what the work cost,
 * the rest going back; a top-up adds. So the balance never goes below zero.
 */
export interface CreditAccounts {
  /** The spendable balance (open reservations already taken off); undefined when the key has no account. */
  balance(keyId: string): Promise<number | undefined>;
  /**
   * Takes `amount` off the balance if it covers it; undefined when it does not (or the key has no
   * account). `leaseUntil`: any node releases the reservation after it unless renewed or tied to a task.
   */
  reserve(keyId: string, model: string, amount: number, leaseUntil: number): Promise<string | undefined>;
  /** Ties a reservation to the task it pays for: from then on the task's end settles it (no lease). */
  attach(reservationId: string, taskId: string): Promise<void>;
  /** Pushes the leases of reservations of calls still running on this node. */
  renew(reservationIds: readonly string[], leaseUntil: number): Promise<void>;
  /** Keeps `spent` (at most the amount) and gives the rest back, once; 0 releases it all. The amount kept, or undefined when already settled. */
  settle(reservationId: string, spent: number): Promise<number | undefined>;
  /** Settles the open reservation of a task, as `settle`; undefined when the task has none. */
  settleTask(taskId: string, spent: number): Promise<number | undefined>;
  /** Releases reservations whose lease passed (their node died) and those of tasks that ended long ago without being settled. */
  reconcile(now: number): Promise<{ readonly released: number }>;
}
