import type { ManagedBlobStore } from './managed-blob-store.ts';
import { startPeriodicJob } from '../core/jobs/periodic-job.ts';

const day = 86_400_000;

/**
 * Deletes blobs older than the retention, now and then every `intervalMs` (task rows stay: their
 * URLs then answer 404). Several processes sweeping one store is harmless. Returns a stop function.
 */
export function startBlobSweeper(
  store: ManagedBlobStore,
  options: {
    retentionDays: number;
    intervalMs?: number;
    /** Keys left alone: blobs with a retention of their own (uploaded files). */
    keepPrefixes?: readonly string[];
    log: (message: string, error?: unknown) => void;
  },
): () => Promise<void> {
  if (options.retentionDays <= 0) return async () => undefined;
  const log = options.log;
  return startPeriodicJob(
    () => store.deleteOlderThan(Date.now() - options.retentionDays * day, options.keepPrefixes ?? []),
    options.intervalMs ?? 3_600_000,
    (error) => log('blob sweep failed; trying again at the next interval', error),
  );
}
