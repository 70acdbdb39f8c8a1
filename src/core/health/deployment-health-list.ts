import type { CatalogEntry } from '../config/config.schema.ts';
import { deploymentsOf, engineAddressOf } from '../config/model-deployments.ts';
import type { DeploymentState } from '../routing/deployment-router.ts';

/** One configured deployment and how this node sees it now. */
export interface DeploymentHealthRow {
  readonly model: string;
  readonly deployment: string;
  readonly backend: string;
  /** The engine's `host:port`, for operators only; undefined for an engine in process. */
  readonly address: string | undefined;
  /** `not-started`: this node has not called the model yet, so it knows nothing of the engine. */
  readonly state: DeploymentState['state'] | 'not-started';
  readonly inFlight: number;
  readonly consecutiveFailures: number;
  readonly coolingUntil?: number;
  readonly lastError?: string;
}

/**
 * Every deployment of every configured model, in config order, with this node's state of it: the
 * router's where the model has been built, `not-started` where it has not (health is passive and
 * per node: a model nobody has called here has none yet).
 */
export function deploymentHealthList(catalog: Readonly<Record<string, CatalogEntry>>, states: readonly DeploymentState[]): DeploymentHealthRow[] {
  const known = new Map(states.map((state) => [`${state.model}\u0000${state.deployment}`, state]));
  return Object.entries(catalog).flatMap(([model, entry]) =>
    deploymentsOf(model, entry).map((deployment): DeploymentHealthRow => {
      const state = known.get(`${model}\u0000${deployment.name}`);
      const address = engineAddressOf(deployment.entry);
      if (state === undefined)
        return { model, deployment: deployment.name, backend: deployment.entry.backend, address, state: 'not-started', inFlight: 0, consecutiveFailures: 0 };
      return {
        model,
        deployment: deployment.name,
        backend: state.backend,
        address,
        state: state.state,
        inFlight: state.inFlight,
        consecutiveFailures: state.consecutiveFailures,
        ...(state.coolingUntil === undefined ? {} : { coolingUntil: state.coolingUntil }),
        ...(state.lastError === undefined ? {} : { lastError: state.lastError }),
      };
    }),
  );
}
