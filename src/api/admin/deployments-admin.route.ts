import { deploymentHealthList, type DeploymentHealthRow } from '../../core/health/deployment-health-list.ts';
import { rateLimitOnly } from '../../http/admission-hooks.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { responses } from '../shared/common.schema.ts';
import { DeploymentHealthList, type DeploymentHealthObject } from './deployments-admin.schema.ts';

/**
 * GET /admin/deployments: every deployment of every configured model with this node's view of its
 * health (healthy, cooling down and until when, calls in flight, the last error). Registered inside
 * the admin routes, so only admin keys reach it; `model-platform models status` prints it.
 */
export function registerDeploymentAdminRoutes(app: App, deps: Pick<AppDependencies, 'config' | 'backends'>): void {
  app.get(
    '/deployments',
    {
      schema: {
        operationId: 'listDeployments',
        tags: ['admin'],
        summary: "Lists every model's deployments with this node's view of their health.",
        response: responses(DeploymentHealthList),
      },
      config: { admission: rateLimitOnly },
    },
    async () => ({ object: 'list' as const, data: deploymentHealthList(deps.config.models ?? {}, deps.backends.deploymentStates()).map(toDeploymentObject) }),
  );
}

function toDeploymentObject(row: DeploymentHealthRow): DeploymentHealthObject {
  return {
    model: row.model,
    deployment: row.deployment,
    backend: row.backend,
    ...(row.address === undefined ? {} : { address: row.address }),
    state: row.state,
    in_flight: row.inFlight,
    consecutive_failures: row.consecutiveFailures,
    ...(row.coolingUntil === undefined ? {} : { cooling_until: row.coolingUntil }),
    ...(row.lastError === undefined ? {} : { last_error: row.lastError }),
  };
}
