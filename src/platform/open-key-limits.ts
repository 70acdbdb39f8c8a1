import { KeyAdmin } from './key-admin.ts';
import { Admission } from '../core/limits/admission.ts';
import type { Limiter } from '../core/limits/limiter.ts';
import type { ApiKeyRepository } from '../store/api-key-repository.ts';
import { CreditRepository } from '../store/credit-repository.ts';
import type { Database } from '../store/database.ts';
import { UsageSummaryRepository } from '../store/usage-summary-repository.ts';
import { UsageReportRepository } from '../store/usage/usage-report-repository.ts';
import type { PriceTable } from '../core/billing/price-table.ts';
import { InProcessLimiter } from '../limits/in-process-limiter.ts';
import { RedisLimiter } from '../limits/redis-limiter.ts';
import { startPeriodicJob } from '../core/jobs/periodic-job.ts';

/** Key limits as the platform composes them. */
export interface KeyLimits {
  readonly limiter: Limiter;
  readonly admission: Admission;
  readonly credits: CreditRepository;
  readonly keyAdmin: KeyAdmin;
  /** Releases lapsed credit reservations (dead nodes') and unsettled ones of ended tasks now and every `intervalMs` (processes that run workers). */
  startReconciler(intervalMs?: number): void;
  close(): Promise<void>;
}

export interface KeyLimitsOptions {
  readonly database: Database;
  readonly keys: ApiKeyRepository;
  /** Counters in this Redis, shared by every node (the same REDIS_URL as the task queue); in-process without. */
  readonly redisUrl: string | undefined;
  /** The config's price table. */
  readonly prices: PriceTable;
  /** A key's policy or state changed in this process: its auth cache entry must go. */
  readonly changed: (id: string) => void;
  /** Where failures the limits survive are logged (a charge to retry, a reconcile that failed). */
  readonly log: (message: string, error: unknown) => void;
}

export function openKeyLimits(options: KeyLimitsOptions): KeyLimits {
  const log = options.log;
  // A fleet counts in Redis, so every node sees every other's counts.
  const limiter: Limiter = options.redisUrl === undefined ? new InProcessLimiter() : new RedisLimiter(options.redisUrl);
  // Every reservation and settlement goes to the database at once: a balance cached or batched on
  // one node would let two nodes spend the same credit.
  const credits = new CreditRepository(options.database);
  const usage = new UsageSummaryRepository(options.database);
  const admission = new Admission({
    limiter,
    credits,
    prices: options.prices,
    policyOf: async (keyId) => (await options.keys.findKey(keyId))?.policy,
    tokensSince: (keyId, since) => usage.tokensSince(keyId, since),
    log,
  });
  const changed = (id: string) => {
    options.changed(id);
    admission.forget(id);
  };
  const keyAdmin = new KeyAdmin({ keys: options.keys, credits, reports: new UsageReportRepository(options.database), changed });
  let stopReconciler: (() => Promise<void>) | undefined;
  return {
    limiter,
    admission,
    credits,
    keyAdmin,
    startReconciler(intervalMs = 2_000) {
      stopReconciler ??= startPeriodicJob(
        () => credits.reconcile(Date.now()),
        intervalMs,
        (error) => log('credit reservations not reconciled; trying again later', error),
      );
    },
    async close() {
      await stopReconciler?.();
      await admission.close();
      await limiter.close();
    },
  };
}
