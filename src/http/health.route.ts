import type { App, AppDependencies } from './app-types.ts';
import { describeProgress } from '../platform/model-files/model-files.ts';

/**
 * Liveness and readiness, unauthenticated, hidden from the OpenAPI document, not counted in the
 * request metrics. /healthz answers while the process runs (restart it when it does not);
 * /readyz asks the dependencies (database, Redis, object store), each under a time limit, and
 * answers 503 naming the one that failed (take the node out of the load balancer meanwhile), or
 * the models none of whose engine deployments is healthy; deployments cooling down are listed.
 * Model files not in place yet (downloading, failed, not fetched) are listed too, without making
 * the node unready: it serves everything else meanwhile.
 */
export function registerHealthRoutes(app: App, deps: Pick<AppDependencies, 'database' | 'readiness' | 'modelFiles'>): void {
  const options = { schema: { hide: true }, config: { public: true, countedInMetrics: false } };
  app.get('/healthz', options, async () => ({ status: 'ok' }));
  app.get('/readyz', options, async (request, reply) => {
    const report = await deps.readiness.report();
    // Deployments appear only when one is not healthy (names and reasons without addresses: deployment-readiness.ts).
    const deployments = {
      ...(report.deployments === undefined ? {} : { deployments: report.deployments }),
      ...modelFilesNotReady(deps.modelFiles),
    };
    if (report.ready) return { status: 'ready', database: deps.database.dialect, checks: report.checks, ...deployments };
    const failed = Object.entries(report.checks).flatMap(([name, state]) => (typeof state === 'string' ? [] : [[name, state] as const]));
    const reasons = failed.map(([name, state]) => `${name}: ${state.error}`);
    const modelsDown = report.deployments?.modelsWithoutHealthy ?? [];
    if (modelsDown.length > 0) reasons.push(`no healthy deployment of ${modelsDown.join(', ')}`);
    // The answer is public: the reasons without addresses; the log keeps them whole.
    request.log.warn({ checks: Object.fromEntries(failed.map(([name, state]) => [name, state.detail])) }, 'not ready');
    const checks = Object.fromEntries(Object.entries(report.checks).map(([name, state]) => [name, typeof state === 'string' ? state : { error: state.error }]));
    reply.code(503).header('cache-control', 'no-store');
    return {
      error: { code: '500', message: `Not ready: ${reasons.join('; ')}.` },
      status: 'not ready',
      database: deps.database.dialect,
      checks,
      ...deployments,
    };
  });
}

/** The hf:// files not in place, by URI, with the download's progress (public: no local path, no hub address; GET /admin/model-files has the errors). */
function modelFilesNotReady(modelFiles: AppDependencies['modelFiles']): { modelFiles?: object[] } {
  const pending = (modelFiles?.statuses() ?? []).filter((status) => status.state !== 'ready');
  if (pending.length === 0) return {};
  return {
    modelFiles: pending.map((status) => ({
      uri: status.uri,
      state: status.state,
      ...(status.state === 'downloading' ? { progress: describeProgress(status) } : {}),
    })),
  };
}
