import { Redis } from 'ioredis';
import { defaultCheckTimeoutMs, Readiness } from '../core/health/readiness.ts';
import type { DeploymentState } from '../core/routing/deployment-router.ts';
import { freeDiskSpaceCheck } from '../core/health/free-disk-space.ts';
import type { LocalDisk } from '../blobs/local-disk.ts';
import type { ManagedBlobStore } from '../blobs/managed-blob-store.ts';
import type { Database } from '../store/database.ts';

export interface ReadinessParts {
  readonly database: Database;
  readonly redisUrl: string | undefined;
  readonly blobs: ManagedBlobStore;
  /** The data dir: SQLite, local blobs and caches live on its disk. */
  readonly dataDir: string;
  /** Less free space than this on the data dir's disk makes the node not ready (0: no minimum). */
  readonly minFreeDiskBytes: number;
  readonly disk: LocalDisk;
  /** The engines' deployments and their health (ModelBackends.deploymentStates); a worker-only process has none to report. */
  readonly deploymentStates?: () => readonly DeploymentState[];
}

/**
 * What /readyz asks of a node: the database (a one-row read), Redis when REDIS_URL is set (PING),
 * the object store (a writable folder, or HeadBucket on S3) and the free space of the data dir's
 * disk (one statfs), so a node whose disk is filling up leaves the load balancer before uploads
 * and generations fail there, and comes back once space is freed. With `deploymentStates`, it also
 * names the engine deployments that are cooling down, and is not ready while a model it has
 * served has no healthy deployment left.
 */
export function createReadiness(parts: ReadinessParts): Readiness {
  return new Readiness(
    [
      { name: 'database', check: () => parts.database.ping() },
      { name: 'redis', check: parts.redisUrl === undefined ? undefined : pingRedis(parts.redisUrl) },
      { name: 'objectStore', check: (signal) => parts.blobs.ping(signal) },
      { name: 'disk', check: freeDiskSpaceCheck(parts.dataDir, parts.minFreeDiskBytes, parts.disk.readSpace) },
    ],
    defaultCheckTimeoutMs,
    parts.deploymentStates,
  );
}

/**
 * A fresh connection per probe, closed after it: probes are seconds apart, and a connection of
 * its own cannot be mistaken for the health of the limiter's or BullMQ's (which retry for ever).
 */
function pingRedis(redisUrl: string): (signal: AbortSignal) => Promise<void> {
  return async (signal) => {
    const redis = new Redis(redisUrl, {
      lazyConnect: true,
      connectTimeout: 1_500,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    // Without a listener ioredis prints connection errors itself; they reach the probe as a rejection.
    redis.on('error', () => undefined);
    const stop = () => redis.disconnect();
    signal.addEventListener('abort', stop, { once: true });
    try {
      await redis.connect();
      const answer = await redis.ping();
      if (answer !== 'PONG') throw new Error(`PING answered '${answer}'`);
    } finally {
      signal.removeEventListener('abort', stop);
      redis.disconnect();
    }
  };
}
