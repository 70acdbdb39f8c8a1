import type { Backend } from '../backends/backend.ts';
import type { ModelRouting } from '../config/model-deployments.ts';
import { EngineFailure } from '../errors/engine-failure.ts';
import { DeploymentHealth } from './deployment-health.ts';
import { DeploymentPicker } from './deployment-picker.ts';
import type { DeploymentSlots } from './deployment-slots.ts';
import { isDeploymentFault, isFailoverEligible } from './failover-eligible.ts';
import { OpenedLater } from '../streams/opened-later.ts';
import { WatchedParts } from '../streams/watched-parts.ts';

/** One engine of a routed model, as the router holds it. */
export interface RoutedDeployment {
  readonly name: string;
  /** The backend kind (`openai-compatible`, `searxng`…). */
  readonly kind: string;
  /** Built from the deployment's entry and instrumented with its name. */
  readonly backend: Backend;
  readonly health: DeploymentHealth;
  readonly weight: number;
  readonly priority: number;
  readonly maxConcurrency: number | undefined;
  inFlight: number;
}

/** One deployment's health, as the readiness check, the metrics and the admin API show it. */
export interface DeploymentState {
  readonly model: string;
  readonly deployment: string;
  readonly backend: string;
  readonly state: 'healthy' | 'cooling-down';
  readonly inFlight: number;
  readonly consecutiveFailures: number;
  /** Epoch milliseconds. */
  readonly coolingUntil?: number;
  readonly lastError?: string;
}

const noneTried: readonly RoutedDeployment[] = [];

/** `attempt(deployment)`'s promise, or its synchronous throw as a rejected one (an engine method may throw before its promise). */
function started<Result>(attempt: (deployment: RoutedDeployment) => Promise<Result>, deployment: RoutedDeployment): Promise<Result> {
  try {
    return attempt(deployment);
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/** `tried` and one more; an array of the exact size (a push would give one room for seventeen). */
function withTried(tried: readonly RoutedDeployment[], deployment: RoutedDeployment): readonly RoutedDeployment[] {
  return tried.length === 0 ? [deployment] : [...tried, deployment];
}

/** Which deployments a call may use (those that have the capability it needs). */
export type Usable = (deployment: RoutedDeployment) => boolean;

interface Chosen {
  readonly deployment: RoutedDeployment;
  readonly trial: boolean;
}

/**
 * Spreads one model's calls over its deployments and moves a failed call to the next one. A
 * call tries each deployment at most once, up to `maxAttempts`, while its signal is live, and only
 * after a failure where the engine produced nothing usable (failover-eligible.ts). Deployments
 * that are cooling down are skipped; when every one is, a model without fallbacks still tries the
 * one whose cool-down ends first (a certain failure is worse than a likely one), as a trial whose
 * answer ends that cool-down, while a model with fallbacks moves on to them.
 */
export class DeploymentRouter {
  readonly model: string;
  readonly #deployments: readonly RoutedDeployment[];
  readonly #routing: ModelRouting;
  readonly #slots: DeploymentSlots;
  readonly #picker: DeploymentPicker<RoutedDeployment>;
  /** A model with one deployment (most): the choice of it, healthy, made once rather than per call. */
  readonly #onlyChoice: Chosen | undefined;

  constructor(model: string, deployments: readonly RoutedDeployment[], routing: ModelRouting, slots: DeploymentSlots) {
    this.model = model;
    this.#deployments = deployments;
    this.#routing = routing;
    this.#slots = slots;
    this.#picker = new DeploymentPicker(routing.strategy);
    const only = deployments.length === 1 ? deployments[0] : undefined;
    this.#onlyChoice = only === undefined ? undefined : { deployment: only, trial: false };
  }

  get deployments(): readonly RoutedDeployment[] {
    return this.#deployments;
  }

  /** Whether the model names fallback models, to take a call over when its own deployments cannot. */
  get hasFallbacks(): boolean {
    return this.#routing.fallbacks.length > 0;
  }

  /** Runs `call` on one deployment after another until one answers or a failure may not move on. */
  call<Result>(
    signal: AbortSignal,
    usable: Usable,
    call: (deployment: RoutedDeployment) => Promise<Result>,
    served: (deployment: RoutedDeployment) => void,
  ): Promise<Result> {
    return this.#failover(signal, usable, (chosen, release) =>
      started(call, chosen.deployment).then(
        (result) => {
          release();
          chosen.deployment.health.succeeded(chosen.trial);
          served(chosen.deployment);
          return result;
        },
        (error: unknown) => {
          release();
          this.#judge(chosen, signal, error);
          throw error;
        },
      ),
    );
  }

  /**
   * Opens the stream on one deployment after another until one passes its first part; from then
   * on the stream is committed to that deployment, and a failure ends it (no second generation).
   */
  stream<Part>(
    signal: AbortSignal,
    usable: Usable,
    open: (deployment: RoutedDeployment) => AsyncIterable<Part>,
    served: (deployment: RoutedDeployment) => void,
  ): AsyncIterableIterator<Part> {
    return new OpenedLater(() => this.openStream(signal, usable, open, served));
  }

  /**
   * What `stream` reads from once committed: the deployment's own stream with its first part read
   * ahead, watched (no layer per part) so that its end frees the deployment's slot and tells its
   * health: ran out or failed (judged), or stopped by the consumer (no verdict).
   */
  openStream<Part>(
    signal: AbortSignal,
    usable: Usable,
    open: (deployment: RoutedDeployment) => AsyncIterable<Part>,
    served: (deployment: RoutedDeployment) => void,
  ): Promise<AsyncIterableIterator<Part>> {
    return this.#failover(signal, usable, async (chosen, release) => {
      let parts: WatchedParts<Part>;
      try {
        parts = WatchedParts.of(open(chosen.deployment), (end) => {
          release();
          if (end.kind === 'done') chosen.deployment.health.succeeded(chosen.trial);
          else if (end.kind === 'failed') this.#judge(chosen, signal, end.error);
          else chosen.deployment.health.abandoned(chosen.trial);
        });
      } catch (error) {
        release();
        this.#judge(chosen, signal, error);
        throw error;
      }
      await parts.readAhead();
      served(chosen.deployment);
      return parts;
    });
  }

  /**
   * Tries `attempt` on one deployment after another (each at most once, up to `maxAttempts`, while
   * the signal is live), moving on only after a failover-eligible failure (`tried`: the deployments
   * tried before, `lastError`: the last one's failure). `attempt` owns the deployment's slot
   * (`release`), tells its health and fails by rejecting, never by throwing. A promise chain rather than an async loop: every engine call
   * passes here, and the chain holds less per call.
   */
  #failover<Result>(
    signal: AbortSignal,
    usable: Usable,
    attempt: (chosen: Chosen, release: () => void) => Promise<Result>,
    tried: readonly RoutedDeployment[] = noneTried,
    lastError?: unknown,
  ): Promise<Result> {
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    const chosen = tried.length < this.#routing.maxAttempts ? this.#choose(usable, tried) : undefined;
    if (chosen === undefined) return Promise.reject(lastError ?? this.#noneAvailable());
    const entered = this.#enter(chosen, signal);
    // A model with one deployment has none to move on to: the try's failure is the call's, with no link to pass it on.
    if (this.#onlyChoice !== undefined) return entered instanceof Promise ? entered.then((release) => attempt(chosen, release)) : attempt(chosen, entered);
    const moveOn = (error: unknown): Promise<Result> => {
      if (signal.aborted || !isFailoverEligible(error)) throw error;
      return this.#failover(signal, usable, attempt, withTried(tried, chosen.deployment), error);
    };
    if (!(entered instanceof Promise)) return attempt(chosen, entered).then(undefined, moveOn);
    return entered.then((release) => attempt(chosen, release).then(undefined, moveOn));
  }

  states(): DeploymentState[] {
    return this.#deployments.map((deployment) => {
      const { health } = deployment;
      const coolingUntil = health.coolingUntil;
      const lastError = health.lastError;
      return {
        model: this.model,
        deployment: deployment.name,
        backend: deployment.kind,
        state: health.healthy ? 'healthy' : 'cooling-down',
        inFlight: deployment.inFlight,
        consecutiveFailures: health.consecutiveFailures,
        ...(coolingUntil === undefined ? {} : { coolingUntil }),
        ...(lastError === undefined ? {} : { lastError }),
      };
    });
  }

  close(): void {
    for (const deployment of this.#deployments) deployment.health.close();
  }

  #choose(usable: Usable, tried: readonly RoutedDeployment[]): Chosen | undefined {
    // A model with one deployment, usable and healthy (most calls): no candidate lists to make.
    const only = this.#onlyChoice;
    if (only !== undefined && tried.length === 0 && only.deployment.health.healthy && usable(only.deployment)) return only;
    const candidates = this.#deployments.filter((deployment) => usable(deployment) && !tried.includes(deployment));
    const healthy = candidates.filter((deployment) => deployment.health.healthy);
    const picked = this.#picker.pick(healthy);
    if (picked !== undefined) return { deployment: picked, trial: false };
    for (const deployment of candidates) {
      if (deployment.health.admit() === 'trial') return { deployment, trial: true };
    }
    if (this.#routing.fallbacks.length > 0 || tried.length > 0) return undefined;
    const soonest = candidates.toSorted((left, right) => (left.health.coolingUntil ?? 0) - (right.health.coolingUntil ?? 0))[0];
    if (soonest === undefined) return undefined;
    soonest.health.admitLastResort();
    return { deployment: soonest, trial: true };
  }

  /**
   * Counts the call in flight and takes a `maxConcurrency` slot when the deployment sets one; gives
   * what ends both, at once when there is no slot to wait for (no promise on a call's way).
   */
  #enter(chosen: Chosen, signal: AbortSignal): (() => void) | Promise<() => void> {
    const { deployment } = chosen;
    const limit = deployment.maxConcurrency;
    if (limit === undefined) {
      deployment.inFlight += 1;
      return this.#release(deployment, undefined);
    }
    return this.#enterSlot(chosen, limit, signal);
  }

  async #enterSlot(chosen: Chosen, limit: number, signal: AbortSignal): Promise<() => void> {
    const { deployment } = chosen;
    deployment.inFlight += 1;
    let freeSlot: () => void;
    try {
      freeSlot = await this.#slots.acquire(this.model, deployment.name, limit, signal);
    } catch (error) {
      deployment.inFlight -= 1;
      // Never sent (its caller left while it waited for a slot): no verdict on the deployment.
      deployment.health.abandoned(chosen.trial);
      throw error;
    }
    return this.#release(deployment, freeSlot);
  }

  /** Ends the call's count in flight and frees its slot, once however often it is called. */
  #release(deployment: RoutedDeployment, freeSlot: (() => void) | undefined): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      deployment.inFlight -= 1;
      freeSlot?.();
    };
  }

  /** What a failed call says about its deployment: its caller left (nothing), the engine's fault (cool down), or the engine answered (healthy). */
  #judge(chosen: Chosen, signal: AbortSignal, error: unknown): void {
    const { health } = chosen.deployment;
    if (signal.aborted) health.abandoned(chosen.trial);
    else if (isDeploymentFault(error)) health.failed(error, chosen.trial);
    else health.succeeded(chosen.trial);
  }

  #noneAvailable(): EngineFailure {
    const cooling = this.#deployments.filter((deployment) => !deployment.health.healthy).map((deployment) => deployment.name);
    return new EngineFailure(
      'unavailable',
      this.model,
      `No deployment of model '${this.model}' can take the call now: ${cooling.length > 0 ? `${cooling.join(', ')} cooling down after failures` : 'none serves this capability'}.`,
    );
  }
}
