import { startPeriodicJob } from '../jobs/periodic-job.ts';
const dayMs = 86_400_000;

/** The ledger's own housekeeping (src/store/usage-repository.ts). */
export interface UsageLedgerHousekeeping {
  /** Makes the ledger ready for the records of the UTC days from `now` to `daysAhead` later (PostgreSQL: their partitions). */
  prepareDays(now: number, daysAhead: number): Promise<void>;
  /** Removes the records of the UTC days before the one holding `cutoffMs` (whole days); the daily rollups stay. */
  dropDaysBefore(cutoffMs: number): Promise<number>;
}

export interface UsageRetentionOptions {
  /** Records are kept this many days; 0 keeps them forever. */
  readonly retentionDays: number;
  /** Days prepared ahead of today. */
  readonly daysAhead?: number;
  readonly intervalMs?: number;
  readonly now?: () => number;
  readonly log?: (message: string, error?: unknown) => void;
}

/** One housekeeping pass: the coming days prepared, the days past retention dropped; returns how many went. */
export async function applyUsageRetention(ledger: UsageLedgerHousekeeping, options: UsageRetentionOptions): Promise<number> {
  const now = (options.now ?? Date.now)();
  await ledger.prepareDays(now, options.daysAhead ?? 7);
  if (options.retentionDays === 0) return 0;
  return ledger.dropDaysBefore(now - options.retentionDays * dayMs);
}

/**
 * Runs `applyUsageRetention` now and then daily, in the processes that run workers. Several
 * processes doing it at once is harmless: preparing a day twice and dropping a dropped day are
 * no-ops. Returns a stop function that waits for a pass under way.
 */
export function startUsageRetention(
  ledger: UsageLedgerHousekeeping,
  options: UsageRetentionOptions & Required<Pick<UsageRetentionOptions, 'log'>>,
): () => Promise<void> {
  const log = options.log;
  return startPeriodicJob(
    () => applyUsageRetention(ledger, options),
    options.intervalMs ?? dayMs,
    (error) => log('usage ledger housekeeping failed; trying again at the next interval', error),
  );
}
