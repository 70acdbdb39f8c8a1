import { abandonedUploadMs, fileRetentionDays } from './file-limits.ts';
import { startPeriodicJob } from '../jobs/periodic-job.ts';

const day = 86_400_000;

/** What the sweeper needs: the store's own retention and abandoned-upload deletes (BlobFileStore). */
export interface ExpiringFiles {
  /** Deletes files (record and bytes) uploaded before `cutoffMs`; returns how many. */
  deleteCreatedBefore(cutoffMs: number): Promise<number>;
  /** Deletes pending uploads (record and bytes) begun before `cutoffMs`; returns how many. */
  deleteAbandonedUploads(cutoffMs: number): Promise<number>;
}

export interface FileRetentionOptions {
  readonly retentionDays?: number;
  readonly intervalMs?: number;
  readonly now?: () => number;
  readonly log: (message: string, error?: unknown) => void;
}

/**
 * Deletes uploaded files older than the retention (180 days, the platform's), and uploads left
 * pending longer than `abandonedUploadMs` (their process died midway), at start-up and then every
 * `intervalMs`. Several processes sweeping at once is harmless: each delete is idempotent. The
 * grace keeps a sweep from taking an upload another node is still indexing.
 * Returns a stop function that waits for a sweep under way.
 */
export function startFileRetentionSweeper(files: ExpiringFiles, options: FileRetentionOptions): () => Promise<void> {
  const retentionMs = (options.retentionDays ?? fileRetentionDays) * day;
  const now = options.now ?? Date.now;
  const log = options.log;
  return startPeriodicJob(
    async () => {
      await files.deleteAbandonedUploads(now() - abandonedUploadMs);
      await files.deleteCreatedBefore(now() - retentionMs);
    },
    options.intervalMs ?? 3_600_000,
    (error) => log('file retention sweep failed; trying again at the next interval', error),
  );
}
