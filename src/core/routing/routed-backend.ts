import type { Backend } from '../backends/backend.ts';
import { callEngine, hasEngineMethod, streamEngine, wrapBackend, type EngineMethodWrapper } from '../backends/wrap-backend.ts';
import type { EngineMethod, EngineRequest } from '../models/capability.ts';
import type { DeploymentRouter, RoutedDeployment, Usable } from './deployment-router.ts';
import { isFailoverEligible } from './failover-eligible.ts';
import { recordServedBy, type ServedBy } from './served-by.ts';
import { OpenedLater } from '../streams/opened-later.ts';

/** A model's router, and the name it stands for when it serves another model's call (a fallback). */
export interface RouterTurn {
  readonly router: DeploymentRouter;
  readonly fallbackModel?: string;
}

/**
 * The Backend of a routed model: each capability the deployments offer, every call routed by
 * the model's router and, when every deployment it tried failed in a way another engine may take
 * over, by the routers of the fallback models in order (`turns`: the model's own first). A
 * fallback model serves under the requested model's name; the route names it in a header.
 */
export function routedBackend(turns: () => readonly RouterTurn[]): Backend {
  const own = turns()[0]?.router;
  if (own === undefined) return {};
  return wrapBackend(new RoutedMethods(own, turns));
}

/** Every engine method of a routed model: which deployment, model or fallback serves each call. */
class RoutedMethods implements EngineMethodWrapper {
  readonly #own: DeploymentRouter;
  readonly #turns: () => readonly RouterTurn[];
  /** The model's own turn, with the deployments it may use for each method (its deployments never change). */
  readonly #ownTurn: RouterTurn;
  readonly #ownUsable = new Map<EngineMethod, Usable>();

  constructor(own: DeploymentRouter, turns: () => readonly RouterTurn[]) {
    this.#own = own;
    this.#turns = turns;
    this.#ownTurn = { router: own };
  }

  offers(method: EngineMethod): boolean {
    return this.#own.deployments.some((deployment) => hasEngineMethod(deployment.backend, method));
  }

  /** One routed call: the model's deployments, then each fallback model's, while the failure lets another engine take over. */
  call(method: EngineMethod, request: EngineRequest): Promise<unknown> {
    return this.#acrossTurns(method, request.signal, (turn, usable) =>
      turn.router.call(
        request.signal,
        usable,
        (deployment) => callEngine(deployment.backend, method, request),
        (deployment) => recordServedBy(request.signal, served(deployment, turn)),
      ),
    );
  }

  /** One routed stream: committed once its first part is passed on; before that, the next deployment or fallback takes it. */
  stream(method: EngineMethod, request: EngineRequest): AsyncIterableIterator<unknown> {
    return new OpenedLater(() =>
      this.#acrossTurns(method, request.signal, (turn, usable) =>
        // Committed once this resolves (its first part is in): later failures are the stream's own.
        turn.router.openStream(
          request.signal,
          usable,
          (deployment) => streamEngine(deployment.backend, method, request),
          (deployment) => recordServedBy(request.signal, served(deployment, turn)),
        ),
      ),
    );
  }

  /**
   * `attempt` on each usable turn in order, until one answers or fails in a way no other engine
   * may take over. The model's own turn comes first and is tried without listing the fallbacks:
   * they are looked up only when it fails over (or has no deployment for the call).
   */
  #acrossTurns<Result>(method: EngineMethod, signal: AbortSignal, attempt: (turn: RouterTurn, usable: Usable) => Promise<Result>): Promise<Result> {
    const usable = this.#ownUsableFor(method);
    if (!this.#own.deployments.some(usable)) return this.#acrossFallbacks(method, signal, attempt, undefined);
    // Without fallbacks the own turn's failure is the call's: no link to pass it on.
    if (!this.#own.hasFallbacks) return attempt(this.#ownTurn, usable);
    return attempt(this.#ownTurn, usable).catch((error: unknown) => {
      if (signal.aborted || !isFailoverEligible(error)) throw error;
      return this.#acrossFallbacks(method, signal, attempt, error);
    });
  }

  /** The fallback models' turns, after the own one failed over with `ownError` (undefined: it had no deployment for the call). */
  async #acrossFallbacks<Result>(
    method: EngineMethod,
    signal: AbortSignal,
    attempt: (turn: RouterTurn, usable: Usable) => Promise<Result>,
    ownError: unknown,
  ): Promise<Result> {
    let lastError = ownError;
    for (const { turn, usable } of this.#usableFallbacks(method)) {
      try {
        return await attempt(turn, usable);
      } catch (error) {
        if (signal.aborted || !isFailoverEligible(error)) throw error;
        lastError = error;
      }
    }
    throw lastError;
  }

  #ownUsableFor(method: EngineMethod): Usable {
    let usable = this.#ownUsable.get(method);
    if (usable === undefined) {
      usable = usableDeployments(this.#own, method);
      this.#ownUsable.set(method, usable);
    }
    return usable;
  }

  /** The fallback turns whose model has a deployment for the call (one without the capability is passed over), each with the deployments it may use. */
  #usableFallbacks(method: EngineMethod): { turn: RouterTurn; usable: Usable }[] {
    return this.#turns()
      .slice(1)
      .map((turn) => ({ turn, usable: usableDeployments(turn.router, method) }))
      .filter(({ turn, usable }) => turn.router.deployments.some(usable));
  }
}

/** The deployments of `router` that have `method`; for a capability whose answers differ by engine kind, only those of the first such deployment's kind. */
function usableDeployments(router: DeploymentRouter, method: EngineMethod): Usable {
  const offering = (deployment: RoutedDeployment) => hasEngineMethod(deployment.backend, method);
  if (!method.oneEngineKind) return offering;
  const kind = router.deployments.find(offering)?.kind;
  return (deployment) => offering(deployment) && deployment.kind === kind;
}

/** What a deployment serving its own model's calls records, one (read-only) per deployment rather than per call. */
const servedByOwn = new WeakMap<RoutedDeployment, ServedBy>();

function served(deployment: RoutedDeployment, turn: RouterTurn): ServedBy {
  if (turn.fallbackModel !== undefined) return { deployment: deployment.name, fallbackModel: turn.fallbackModel };
  let own = servedByOwn.get(deployment);
  if (own === undefined) {
    own = { deployment: deployment.name };
    servedByOwn.set(deployment, own);
  }
  return own;
}
