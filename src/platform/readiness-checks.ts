import { Redis } from 'ioredis';
import { Readiness } from '../core/health/readiness.ts';
import type { ManagedBlobStore } from '../blobs/managed-blob-store.ts';
import type { Database } from '../store/database.ts';

/**
 * What /readyz asks of a node: the database (a one-row read), Redis when REDIS_URL is set (PING)
 * and the object store (a writable folder, or HeadBucket on S3).
 */
export function createReadiness(parts: { database: Database; redisUrl: string | undefined; blobs: ManagedBlobStore }): Readiness {
  return new Readiness([
    { name: 'database', check: () => parts.database.ping() },
    { name: 'redis', check: parts.redisUrl === undefined ? undefined : pingRedis(parts.redisUrl) },
    { name: 'objectStore', check: (signal) => parts.blobs.ping(signal) },
  ]);
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
