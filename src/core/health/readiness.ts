import type { DeploymentState } from '../routing/deployment-router.ts';
import { deploymentReadiness, type DeploymentReadiness } from './deployment-readiness.ts';
import { publicReason } from './public-reason.ts';

/** One dependency /readyz asks about: resolves when it answers, throws (or is aborted) when not. */
export interface ReadinessCheck {
  /** The key in the answer, e.g. `database`. */
  readonly name: string;
  /** Undefined when the dependency is not configured (reported as such, never failing). */
  readonly check: ((signal: AbortSignal) => Promise<void>) | undefined;
}

/** A failed check: `error` for the answer (no addresses), `detail` for the log. */
export type CheckState = 'ok' | 'not configured' | { readonly error: string; readonly detail: string };

export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, CheckState>>;
  /** Present when some engine deployment is not healthy; `modelsWithoutHealthy` not empty makes the node not ready. */
  readonly deployments?: DeploymentReadiness;
}

/** Each check gets this long; a load balancer's probe must not hang on a dead dependency. */
export const defaultCheckTimeoutMs = 2_000;

/**
 * Whether this node can serve: every configured dependency (database, Redis, object store)
 * answered within the time limit. The checks run in parallel, so a probe takes at most one limit.
 */
export class Readiness {
  readonly #checks: readonly ReadinessCheck[];
  readonly #timeoutMs: number;
  readonly #deploymentStates: (() => readonly DeploymentState[]) | undefined;

  /** `deploymentStates`: the engines' health (ModelBackends.deploymentStates), read at each probe; none for a node without engines. */
  constructor(checks: readonly ReadinessCheck[], timeoutMs = defaultCheckTimeoutMs, deploymentStates?: () => readonly DeploymentState[]) {
    this.#checks = checks;
    this.#timeoutMs = timeoutMs;
    this.#deploymentStates = deploymentStates;
  }

  async report(): Promise<ReadinessReport> {
    const states = await Promise.all(this.#checks.map((check) => this.#run(check)));
    const checks = Object.fromEntries(this.#checks.map((check, index) => [check.name, states[index] ?? 'not configured']));
    const dependenciesReady = states.every((state) => typeof state === 'string');
    const deployments = this.#deploymentStates === undefined ? undefined : deploymentReadiness(this.#deploymentStates());
    if (deployments === undefined) return { ready: dependenciesReady, checks };
    return { ready: dependenciesReady && deployments.modelsWithoutHealthy.length === 0, checks, deployments };
  }

  async #run(check: ReadinessCheck): Promise<CheckState> {
    if (check.check === undefined) return 'not configured';
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        check.check(controller.signal),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => {
            const error = new Error(`no answer within ${this.#timeoutMs} ms`);
            // Settled before the abort, so the answer names the time limit, not the abort it causes.
            reject(error);
            controller.abort(error);
          }, this.#timeoutMs);
        }),
      ]);
      return 'ok';
    } catch (error) {
      const detail = describe(error);
      return { error: publicReason(detail), detail };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A one-line reason: the message, or the error's code when the message is empty (ECONNREFUSED). */
function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describe(error.errors[0]);
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const message = error.message.split('\n')[0]?.trim() ?? '';
    if (message !== '') return message;
    if (typeof code === 'string') return code;
    return error.name;
  }
  return String(error);
}
