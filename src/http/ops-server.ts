import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App, AppDependencies } from './app-types.ts';
import { handleClientError } from './client-error-handler.ts';
import { handleError } from './error-handler.ts';
import { registerHealthRoutes } from './health.route.ts';
import { registerMetricsRoute } from './metrics.route.ts';
import { installServerLimits, serverOptions, type ServerLimits } from './server-limits.ts';

/**
 * /healthz, /readyz and /metrics alone, for a process without the API (`model-platform worker
 * --port N`): its task outcomes and engine calls are its own, so Prometheus scrapes it too. It
 * listens on a network like the API, so it has the API server's timeouts and error answers. With
 * `logger`, what it logs (a failing readiness check, an unhandled error) goes there; the probes
 * and scrapes themselves are not logged.
 */
export async function startOpsServer(
  deps: Pick<AppDependencies, 'database' | 'readiness' | 'metrics'> & { readonly logger?: FastifyBaseLogger },
  address: { port: number; host: string },
  limits: ServerLimits,
): Promise<App> {
  const logging =
    deps.logger === undefined ? { logger: false } : { loggerInstance: deps.logger, logController: new LogController({ disableRequestLogging: true }) };
  const app: App = Fastify({ ...logging, ...serverOptions(limits), clientErrorHandler: handleClientError }).withTypeProvider<TypeBoxTypeProvider>();
  installServerLimits(app.server, limits);
  app.setErrorHandler(handleError);
  registerHealthRoutes(app, deps);
  registerMetricsRoute(app, deps.metrics);
  await app.listen(address);
  return app;
}
