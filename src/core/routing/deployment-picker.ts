import type { RoutingStrategy } from '../config/config.schema.ts';

/** What the picker reads of a deployment. */
export interface PickCandidate {
  readonly weight: number;
  readonly priority: number;
  readonly inFlight: number;
  /** Its `maxConcurrency`, when set: a deployment at its limit is taken only when every other is too. */
  readonly maxConcurrency: number | undefined;
}

/**
 * Picks one deployment among those a call may use, by the model's strategy. Weighted routing is
 * smooth weighted round-robin (nginx's): over any run of calls each deployment's share is its
 * weight's, within one call, and picks interleave instead of coming in bursts. Ties under the
 * other strategies go round in turn, so equal deployments share the load.
 */
export class DeploymentPicker<Candidate extends PickCandidate> {
  readonly #strategy: RoutingStrategy;
  /** The running scores of smooth weighted round-robin, per deployment. */
  readonly #scores = new Map<Candidate, number>();
  #turn = 0;

  constructor(strategy: RoutingStrategy) {
    this.#strategy = strategy;
  }

  pick(candidates: readonly Candidate[]): Candidate | undefined {
    const withRoom = candidates.filter((candidate) => candidate.maxConcurrency === undefined || candidate.inFlight < candidate.maxConcurrency);
    const pool = withRoom.length > 0 ? withRoom : candidates;
    if (pool.length <= 1) return pool[0];
    this.#turn = (this.#turn + 1) % 1_000_000;
    switch (this.#strategy) {
      case 'weighted':
        return this.#weighted(pool);
      case 'priority': {
        const first = Math.min(...pool.map((candidate) => candidate.priority));
        return this.#leastInFlight(pool.filter((candidate) => candidate.priority === first));
      }
      case 'least-in-flight':
        return this.#leastInFlight(pool);
    }
  }

  #leastInFlight(pool: readonly Candidate[]): Candidate | undefined {
    const least = Math.min(...pool.map((candidate) => candidate.inFlight));
    const tied = pool.filter((candidate) => candidate.inFlight === least);
    return tied[this.#turn % tied.length];
  }

  #weighted(pool: readonly Candidate[]): Candidate | undefined {
    // Weight 0 is a standby: used only when no weighted deployment can take the call.
    const weighted = pool.filter((candidate) => candidate.weight > 0);
    if (weighted.length === 0) return this.#leastInFlight(pool);
    let total = 0;
    let best: Candidate | undefined;
    let bestScore = -Infinity;
    for (const candidate of weighted) {
      const score = (this.#scores.get(candidate) ?? 0) + candidate.weight;
      this.#scores.set(candidate, score);
      total += candidate.weight;
      if (score > bestScore) {
        best = candidate;
        bestScore = score;
      }
    }
    if (best !== undefined) this.#scores.set(best, bestScore - total);
    return best;
  }
}
