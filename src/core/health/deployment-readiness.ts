import type { DeploymentState } from '../routing/deployment-router.ts';
import { publicReason } from './public-reason.ts';

/** A deployment that takes no calls now, as an unauthenticated caller of /readyz may read it. */
interface UnhealthyDeployment {
  readonly model: string;
  /** Its name, with any address an operator wrote in it masked. */
  readonly deployment: string;
  /** Its place among the model's deployments (from 1, config order): tells apart names masked alike. */
  readonly position: number;
  readonly state: DeploymentState['state'];
  /** Milliseconds until it may be tried again, while it cools down. */
  readonly retryInMs?: number;
  /** What made it fail, without addresses. */
  readonly reason?: string;
}

/** What /readyz says of the engines: present only when some deployment is not healthy. */
export interface DeploymentReadiness {
  /** Models none of whose deployments is healthy: the node is not ready while there is one. */
  readonly modelsWithoutHealthy: readonly string[];
  readonly notHealthy: readonly UnhealthyDeployment[];
}

/**
 * Judges the deployments of the models this node has used (a model is built on its first call;
 * one never called has nothing to report): ready while every model has a healthy deployment.
 * Undefined when every deployment is healthy, so the answer of a healthy node stays as it was.
 */
export function deploymentReadiness(states: readonly DeploymentState[], now = Date.now()): DeploymentReadiness | undefined {
  const positions = new Map<string, number>();
  const healthyModels = new Set<string>();
  const notHealthy: UnhealthyDeployment[] = [];
  for (const state of states) {
    const position = (positions.get(state.model) ?? 0) + 1;
    positions.set(state.model, position);
    if (state.state === 'healthy') {
      healthyModels.add(state.model);
      continue;
    }
    notHealthy.push({
      model: state.model,
      deployment: publicReason(state.deployment),
      position,
      state: state.state,
      ...(state.coolingUntil === undefined ? {} : { retryInMs: Math.max(0, state.coolingUntil - now) }),
      ...(state.lastError === undefined ? {} : { reason: publicReason(state.lastError.slice(0, 300)) }),
    });
  }
  if (notHealthy.length === 0) return undefined;
  const modelsWithoutHealthy = [...positions.keys()].filter((model) => !healthyModels.has(model));
  return { modelsWithoutHealthy, notHealthy };
}
