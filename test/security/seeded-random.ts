/**
 * A small deterministic PRNG (mulberry32) for the fuzzer: the same seed gives the same cases on
 * every machine, so a failure seen in CI is reproduced with `FUZZ_SEED=<seed>`.
 */
export class SeededRandom {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let mixed = this.#state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<Item>(items: readonly Item[]): Item {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(0, items.length - 1)] as Item;
  }
}

/** The seed of this run: `FUZZ_SEED` when set (a number), else the fixed default that CI uses. */
export function fuzzSeed(environment: NodeJS.ProcessEnv, fallback: number): number {
  const given = environment['FUZZ_SEED'];
  if (given === undefined || given === '') return fallback;
  const parsed = Number(given);
  if (!Number.isSafeInteger(parsed)) throw new Error(`FUZZ_SEED must be an integer, got '${given}'`);
  return parsed >>> 0;
}
