import { ApiError } from '../core/errors/api-error.ts';
import type { App } from './app-types.ts';

/** Whether the app has begun to close (SIGTERM: in-flight requests finish, new ones go elsewhere). */
export interface Shutdown {
  readonly closing: boolean;
}

/**
 * Watches the app's close. Fastify's own answer to requests that arrive meanwhile
 * (return503OnClosing) is a body of its own shape; the platform answers them itself
 * (identifyAndAuthenticate) with shuttingDown().
 */
export function watchShutdown(app: App): Shutdown {
  const shutdown = { closing: false };
  app.addHook('preClose', (done) => {
    shutdown.closing = true;
    done();
  });
  return shutdown;
}

/**
 * 503 for a request that reached a closing server: retryable (SDKs retry 5xx), Retry-After for the
 * rest; Fastify adds `Connection: close`, so the client's next attempt opens a connection a load
 * balancer sends to another node.
 */
export function shuttingDown(): ApiError {
  return new ApiError('503', undefined, { 'retry-after': '1' });
}
