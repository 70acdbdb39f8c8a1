import { Semaphore } from '../backends/concurrency-limit.ts';

/**
 * The `maxConcurrency` slots of each deployment. In one process by default; a fleet shares them
 * through Redis (another implementation of this interface), so the limit holds across API nodes.
 */
export interface DeploymentSlots {
  /** One of `limit` slots of (model, deployment): waits until one frees or `signal` aborts (rejects with its reason); resolves with the release (idempotent). */
  acquire(model: string, deployment: string, limit: number, signal: AbortSignal): Promise<() => void>;
  /** A slot only when one is free now, else undefined (the router may pick another deployment). */
  tryAcquire(model: string, deployment: string, limit: number): Promise<(() => void) | undefined>;
  close(): Promise<void>;
}

/** Slots counted in this process: one FIFO semaphore per deployment. */
export class InProcessDeploymentSlots implements DeploymentSlots {
  /** Keyed by model and deployment name, both from the config file. */
  readonly #semaphores = new Map<string, Semaphore>();

  acquire(model: string, deployment: string, limit: number, signal: AbortSignal): Promise<() => void> {
    return this.#semaphore(model, deployment, limit).acquire(signal);
  }

  tryAcquire(model: string, deployment: string, limit: number): Promise<(() => void) | undefined> {
    return Promise.resolve(this.#semaphore(model, deployment, limit).tryAcquire());
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  #semaphore(model: string, deployment: string, limit: number): Semaphore {
    const key = `${model}\u0000${deployment}`;
    let semaphore = this.#semaphores.get(key);
    if (semaphore === undefined) {
      semaphore = new Semaphore(limit);
      this.#semaphores.set(key, semaphore);
    }
    return semaphore;
  }
}
