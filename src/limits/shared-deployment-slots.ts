import { randomUUID } from 'node:crypto';
import type { Limiter, SlotHold } from '../core/limits/limiter.ts';
import { InProcessDeploymentSlots, type DeploymentSlots } from '../core/routing/deployment-slots.ts';
import { abortReason } from '../core/errors/abort-reason.ts';

export interface SharedDeploymentSlotsOptions {
  /** How long a slot outlives its node: renewed every third of it while the call runs. */
  readonly leaseMs?: number;
  /** Longest pause between two asks while every slot of the fleet is taken (the first pauses are shorter). */
  readonly maxPollMs?: number;
  readonly now?: () => number;
  /** Where a Redis failure is logged; the call then goes on within this node's own share of slots. */
  readonly log: (message: string, error: unknown) => void;
}

/** The first pause after a refusal; it doubles up to maxPollMs while slots stay taken. */
const firstPollMs = 10;

/**
 * A deployment's `maxConcurrency` held across every API node sharing the Limiter's Redis: each
 * call holds a slot in the deployment's slot set (the same atomic script and lease as key
 * concurrency), renewed while the call runs, so a node that dies frees its slots within one lease.
 * Calls on this node first queue in order for one of `limit` local slots (a node never asks Redis
 * for more than the limit, and its callers keep their order); the one at the head then asks Redis,
 * and while every slot of the fleet is taken asks again after a pause that grows to maxPollMs, or
 * at once when a call of this node releases a slot of that deployment. When Redis fails the call
 * goes on under the local limit alone: an engine call is not refused for a limiter outage.
 */
export class SharedDeploymentSlots implements DeploymentSlots {
  readonly #limiter: Limiter;
  readonly #local = new InProcessDeploymentSlots();
  readonly #leaseMs: number;
  readonly #maxPollMs: number;
  readonly #now: () => number;
  readonly #log: (message: string, error: unknown) => void;
  /** Slots held by calls of this node, renewed until released. */
  readonly #live = new Set<SlotHold>();
  /** Callers of this node waiting for a fleet slot, by slot counter: woken when this node frees one. */
  readonly #waiting = new Map<string, Set<() => void>>();
  readonly #renewTimer: NodeJS.Timeout;

  constructor(limiter: Limiter, options: SharedDeploymentSlotsOptions) {
    this.#limiter = limiter;
    this.#leaseMs = options.leaseMs ?? 30_000;
    this.#maxPollMs = options.maxPollMs ?? 200;
    this.#now = options.now ?? Date.now;
    this.#log = options.log;
    this.#renewTimer = setInterval(() => void this.#renew(), Math.max(50, Math.floor(this.#leaseMs / 3)));
    this.#renewTimer.unref();
  }

  async acquire(model: string, deployment: string, limit: number, signal: AbortSignal): Promise<() => void> {
    const releaseLocal = await this.#local.acquire(model, deployment, limit, signal);
    const counter = slotCounter(model, deployment);
    try {
      for (let pauseMs = firstPollMs; ; pauseMs = Math.min(pauseMs * 2, this.#maxPollMs)) {
        signal.throwIfAborted();
        const held = await this.#take(counter, limit);
        if (held !== false) return this.#releaser(counter, held, releaseLocal);
        await this.#pause(counter, pauseMs, signal);
      }
    } catch (error) {
      releaseLocal();
      throw error;
    }
  }

  async tryAcquire(model: string, deployment: string, limit: number): Promise<(() => void) | undefined> {
    const releaseLocal = await this.#local.tryAcquire(model, deployment, limit);
    if (releaseLocal === undefined) return undefined;
    const counter = slotCounter(model, deployment);
    const held = await this.#take(counter, limit);
    if (held !== false) return this.#releaser(counter, held, releaseLocal);
    releaseLocal();
    return undefined;
  }

  async close(): Promise<void> {
    clearInterval(this.#renewTimer);
    const held = [...this.#live];
    this.#live.clear();
    // A node that stops frees its slots now rather than after their lease.
    await Promise.all(held.map((slot) => this.#limiter.releaseSlot(slot).catch(() => undefined)));
  }

  /** A fleet slot (its hold), false when every one is taken, undefined when Redis failed (the local slot stands alone). */
  async #take(counter: string, limit: number): Promise<SlotHold | false | undefined> {
    const now = this.#now();
    const slot = { counter, limit, holder: randomUUID(), leaseUntil: now + this.#leaseMs };
    try {
      const verdict = await this.#limiter.check({ now, slot });
      if (!verdict.admitted) return false;
    } catch (error) {
      this.#log('deployment slots: the shared limiter failed; this call holds only a slot of this node', error);
      return undefined;
    }
    const hold = { counter, holder: slot.holder };
    this.#live.add(hold);
    return hold;
  }

  #releaser(counter: string, hold: SlotHold | undefined, releaseLocal: () => void): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      releaseLocal();
      if (hold === undefined) return;
      this.#live.delete(hold);
      this.#limiter.releaseSlot(hold).then(
        () => this.#wake(counter),
        (error: unknown) => this.#log('deployment slots: a slot could not be released; it lapses with its lease', error),
      );
    };
  }

  /** Waits `ms`, or less when this node frees a slot of `counter`; rejects when `signal` aborts. */
  #pause(counter: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let waiters = this.#waiting.get(counter);
      if (waiters === undefined) {
        waiters = new Set();
        this.#waiting.set(counter, waiters);
      }
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', leave);
        waiters.delete(done);
        if (waiters.size === 0 && this.#waiting.get(counter) === waiters) this.#waiting.delete(counter);
      };
      const wake = () => {
        done();
        resolve();
      };
      const leave = () => {
        done();
        reject(abortReason(signal));
      };
      const timer = setTimeout(wake, ms);
      waiters.add(wake);
      signal.addEventListener('abort', leave, { once: true });
    });
  }

  #wake(counter: string): void {
    for (const wake of [...(this.#waiting.get(counter) ?? [])]) wake();
  }

  async #renew(): Promise<void> {
    if (this.#live.size === 0) return;
    const now = this.#now();
    try {
      await this.#limiter.renewSlots([...this.#live], now + this.#leaseMs, now);
    } catch (error) {
      this.#log('deployment slots: leases could not be renewed', error);
    }
  }
}

/** The slot set of one deployment; the hash tag keeps a model's sets on one Redis Cluster shard. */
function slotCounter(model: string, deployment: string): string {
  return `deployment-slots:{${model}}:${deployment}`;
}
