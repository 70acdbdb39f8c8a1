import { ApiError } from '../core/errors/api-error.ts';
import type { App, AppDependencies } from './app-types.ts';

/** Liveness and readiness, unauthenticated, hidden from the OpenAPI document. */
export function registerHealthRoutes(app: App, deps: AppDependencies): void {
  const options = { schema: { hide: true }, config: { public: true } };
  app.get('/healthz', options, async () => ({ status: 'ok' }));
  app.get('/readyz', options, async () => {
    try {
      await deps.database.ping();
    } catch (error) {
      throw new ApiError('500', `Not ready: the database does not answer (${(error as Error).message}).`);
    }
    return { status: 'ready', database: deps.database.dialect };
  });
}
