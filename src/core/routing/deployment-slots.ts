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

/** Slots counted in this process: each deployment a key of one semaphore, with its own limit and waiters in order. */
export class InProcessDeploymentSlots implements DeploymentSlots {
  readonly #slots = new Semaphore();

  acquire(model: string, deployment: string, limit: number, signal: AbortSignal): Promise<() => void> {
    return this.#slots.acquire(slotKey(model, deployment), signal, { keyLimit: limit });
  }

  tryAcquire(model: string, deployment: string, limit: number): Promise<(() => void) | undefined> {
    return Promise.resolve(this.#slots.tryAcquire(slotKey(model, deployment), limit));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Model and deployment name, both from the config file. */
function slotKey(model: string, deployment: string): string {
  return `${model}\u0000${deployment}`;
}
