import type { ManagedBlobStore } from './managed-blob-store.ts';

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
    log?: (message: string, error?: unknown) => void;
  },
): () => Promise<void> {
  if (options.retentionDays <= 0) return async () => undefined;
  const log = options.log ?? ((message, error) => console.error(message, error ?? ''));
  let running: Promise<void> | undefined;
  const sweep = () => {
    running ??= store
      .deleteOlderThan(Date.now() - options.retentionDays * day, options.keepPrefixes ?? [])
      .then(
        () => undefined,
        (error: unknown) => log('blob sweep failed; trying again at the next interval', error),
      )
      .finally(() => (running = undefined));
  };
  sweep();
  const timer = setInterval(sweep, options.intervalMs ?? 3_600_000);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
