import type { LimitWindow } from './quota-window.ts';

type CounterKind = 'rate' | 'tokens' | 'calls';

/** Counter names share the key id as a hash tag, so a Redis Cluster keeps one key's counters together. */
export function counterName(keyId: string, kind: CounterKind | 'slot', part: string): string {
  return `{${keyId}}:${kind}:${part}`;
}

/** One counted part of a limit check: the counter, its limit, and when the counter ends. */
export interface CounterPart {
  readonly counter: string;
  readonly limit: number;
  readonly expiresAt: number;
}

interface Named {
  readonly windowId: string;
  readonly startsAt: number;
  readonly name: string;
  /** The part last asked for in this window (a policy change gives it a new limit). */
  part: CounterPart | undefined;
}

/**
 * The counter names of one key, and the parts of a limit check made of them, built once per
 * window instead of three or four times per call (admission is on every request's path; see
 * BENCHMARKS.md "Fleet").
 */
export class KeyCounters {
  readonly #keyId: string;
  readonly #named: Record<CounterKind, Named | undefined> = { rate: undefined, tokens: undefined, calls: undefined };
  readonly #slots = new Map<string, string>();

  constructor(keyId: string) {
    this.#keyId = keyId;
  }

  /** The counter of `kind` in `window`. */
  of(kind: CounterKind, window: LimitWindow): string {
    const named = this.#named[kind];
    if (named !== undefined && named.windowId === window.id) return named.name;
    const name = counterName(this.#keyId, kind, window.id);
    // Usage records of an earlier window (a call that began before midnight) do not displace the present one.
    if (named === undefined || window.startsAt > named.startsAt) this.#named[kind] = { windowId: window.id, startsAt: window.startsAt, name, part: undefined };
    return name;
  }

  /** The part of `kind` in `window` with `limit`: the same object call after call while neither changes. */
  part(kind: CounterKind, window: LimitWindow, limit: number): CounterPart {
    const counter = this.of(kind, window);
    const named = this.#named[kind];
    // Only the present window's part is kept (of() keeps only its name).
    if (named === undefined || named.windowId !== window.id) return { counter, limit, expiresAt: window.resetsAt };
    if (named.part === undefined || named.part.limit !== limit) named.part = { counter, limit, expiresAt: window.resetsAt };
    return named.part;
  }

  /** The concurrency slots of one model. */
  slot(model: string): string {
    let name = this.#slots.get(model);
    if (name === undefined) {
      if (this.#slots.size >= 1_000) this.#slots.clear();
      name = counterName(this.#keyId, 'slot', model);
      this.#slots.set(model, name);
    }
    return name;
  }
}
