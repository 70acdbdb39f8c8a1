/**
 * Prepaid credit per key, in micro-units, kept in the database (money outlives a Redis restart).
 * Async work holds its estimated price when submitted; the hold is settled once when the task
 * succeeds and released (given back) once when it fails, by task id, whichever node sees it.
 */
export interface CreditAccounts {
  /** The spendable balance (holds already taken off); undefined when the key has no account. */
  balance(keyId: string): Promise<number | undefined>;
  /** Takes a completed sync call's price off the balance, which may go below zero. */
  charge(keyId: string, amount: number): Promise<void>;
  /** Takes `amount` off the balance for work about to be submitted, if the balance covers it. */
  hold(keyId: string, model: string, amount: number): Promise<CreditHold | undefined>;
  /** Settles or releases the holds of tasks that have ended (and releases holds never tied to a task). */
  reconcile(now: number): Promise<{ readonly settled: number; readonly released: number }>;
}

export interface CreditHold {
  readonly id: string;
  /** Ties the hold to the task it pays for; from then on the task's end settles or releases it. */
  attach(taskId: string): Promise<void>;
  /** Gives the amount back (the submission failed). */
  release(): Promise<void>;
}
