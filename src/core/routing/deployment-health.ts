import { EngineFailure } from '../errors/engine-failure.ts';

/** How a deployment's cool-downs grow: the first lasts `baseMs`, each further failure doubles it, up to `maxMs`. */
export interface CoolDownPolicy {
  readonly baseMs: number;
  readonly maxMs: number;
  /** Longest wait for a probe's answer. */
  readonly probeTimeoutMs: number;
}

export const defaultCoolDown: CoolDownPolicy = { baseMs: 1000, maxMs: 10_000, probeTimeoutMs: 5000 };

/** Asks the engine whether it answers again (the backend's probe); throws when it does not. */
export type HealthProbe = (signal: AbortSignal) => Promise<unknown>;

/**
 * Passive health of one deployment. A failure that is the engine's fault (failover-eligible.ts)
 * cools it down; the cool-down doubles with each failure in a row, within the policy's bound.
 * When it ends, the backend's probe (when it has one) decides: the deployment is healthy again
 * once the probe answers, else it cools down longer. Without a probe it is half-open: the next
 * call alone is let through, as the probe. A deployment that refused for load (429) is half-open
 * after its cool-down whatever its probe: a listing answers while the engine has no room, and
 * each probe's success would end the doubling. A call sent to a deployment that is still cooling down
 * (the router's last resort, when every deployment is) is such a trial too: its answer ends the
 * cool-down, its failure makes it longer.
 */
export class DeploymentHealth {
  readonly #policy: CoolDownPolicy;
  readonly #probe: HealthProbe | undefined;
  readonly #now: () => number;
  #consecutiveFailures = 0;
  #coolingUntil: number | undefined;
  #lastError: string | undefined;
  /** Trial calls running: the one let through a half-open deployment, and last-resort calls; no half-open trial while one runs. */
  #trialsRunning = 0;
  #probeTimer: NodeJS.Timeout | undefined;
  /** Whether the probe decides the end of this cool-down (else the next call does, as a trial). */
  #probeDecides = false;
  #probing: AbortController | undefined;
  #closed = false;

  constructor(policy: CoolDownPolicy, probe: HealthProbe | undefined, now: () => number = Date.now) {
    this.#policy = policy;
    this.#probe = probe;
    this.#now = now;
  }

  get consecutiveFailures(): number {
    return this.#consecutiveFailures;
  }

  get coolingUntil(): number | undefined {
    return this.#coolingUntil;
  }

  get lastError(): string | undefined {
    return this.#lastError;
  }

  get healthy(): boolean {
    return this.#coolingUntil === undefined;
  }

  /**
   * Whether a call may go to this deployment now: 'trial' when it is the one call let through a
   * half-open deployment (the caller reports every outcome through `succeeded` or `failed`).
   */
  admit(): 'yes' | 'trial' | 'no' {
    if (this.#coolingUntil === undefined) return 'yes';
    if (this.#probeDecides || this.#trialsRunning > 0 || this.#now() < this.#coolingUntil) return 'no';
    this.#trialsRunning += 1;
    return 'trial';
  }

  /**
   * A call sent although the deployment is cooling down, because every deployment of the model is
   * and a likely failure beats a certain one: a trial (report its outcome with `trial` true).
   */
  admitLastResort(): void {
    this.#trialsRunning += 1;
  }

  /**
   * A call answered. A call that began before the deployment cooled down does not end the
   * cool-down (a busy engine answers some calls while it refuses others); the trial call does.
   */
  succeeded(trial: boolean): void {
    if (trial) this.#trialEnded();
    if (this.#coolingUntil === undefined || trial) this.#recovered();
  }

  /** A call that ended without a verdict on the engine (its caller left): the trial, if it was one, is free again. */
  abandoned(trial: boolean): void {
    if (trial) this.#trialEnded();
  }

  failed(error: unknown, trial = false): void {
    if (trial) this.#trialEnded();
    this.#lastError = describe(error);
    // Calls that were running when the deployment failed each report it: one cool-down, not a doubling per call.
    // A trial was sent to test the deployment, so its failure is a verdict of its own, even before the cool-down ends.
    if (!trial && this.#coolingUntil !== undefined && this.#now() < this.#coolingUntil) return;
    this.#consecutiveFailures += 1;
    const coolDownMs = Math.min(this.#policy.maxMs, this.#policy.baseMs * 2 ** Math.min(this.#consecutiveFailures - 1, 30));
    this.#coolingUntil = this.#now() + coolDownMs;
    clearTimeout(this.#probeTimer);
    this.#probeDecides = this.#probe !== undefined && !this.#closed && !isBusy(error);
    if (this.#probeDecides) {
      this.#probeTimer = setTimeout(() => void this.#runProbe(), coolDownMs);
      this.#probeTimer.unref();
    }
  }

  /** Never below zero: a count driven negative by a stray second report would let several half-open trials through at once. */
  #trialEnded(): void {
    this.#trialsRunning = Math.max(0, this.#trialsRunning - 1);
  }

  #recovered(): void {
    this.#probeDecides = false;
    this.#consecutiveFailures = 0;
    this.#coolingUntil = undefined;
    this.#lastError = undefined;
  }

  /** Stops the probe timer and any probe in flight. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#probeTimer);
    this.#probing?.abort();
  }

  async #runProbe(): Promise<void> {
    if (this.#probe === undefined || this.#closed) return;
    const probing = new AbortController();
    this.#probing = probing;
    const timer = setTimeout(() => probing.abort(new Error(`no answer to the probe within ${this.#policy.probeTimeoutMs} ms`)), this.#policy.probeTimeoutMs);
    try {
      await this.#probe(probing.signal);
      if (!this.#closed) this.#recovered();
    } catch (error) {
      if (!this.#closed) {
        // The cool-down has ended: this failure starts the next, longer one.
        this.#coolingUntil = undefined;
        this.failed(error);
      }
    } finally {
      clearTimeout(timer);
      this.#probing = undefined;
    }
  }
}

/** Busy is not down: an engine that refused for load still answers its listing, so only a real call tells whether it has room again. */
function isBusy(error: unknown): boolean {
  return error instanceof EngineFailure && error.kind === 'overloaded';
}

/** One short line for the state listing: the error's message, never a stack. */
function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
