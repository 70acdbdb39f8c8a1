import Fastify from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App, AppDependencies } from './app-types.ts';
import { handleError } from './error-handler.ts';
import { registerHealthRoutes } from './health.route.ts';
import { registerMetricsRoute } from './metrics.route.ts';

/**
 * /healthz, /readyz and /metrics alone, for a process without the API (`model-platform worker
 * --port N`): its task outcomes and engine calls are its own, so Prometheus scrapes it too.
 */
export async function startOpsServer(deps: Pick<AppDependencies, 'database' | 'readiness' | 'metrics'>, address: { port: number; host: string }): Promise<App> {
  const app: App = Fastify({ logger: false }).withTypeProvider<TypeBoxTypeProvider>();
  app.setErrorHandler(handleError);
  registerHealthRoutes(app, deps);
  registerMetricsRoute(app, deps.metrics);
  await app.listen(address);
  return app;
}
