import type { LimitWindow } from './quota-window.ts';

type CounterKind = 'rate' | 'tokens' | 'calls';

/** Counter names share the key id as a hash tag, so a Redis Cluster keeps one key's counters together. */
function counterName(keyId: string, kind: CounterKind | 'slot', part: string): string {
  return `{${keyId}}:${kind}:${part}`;
}

/** The counter of `kind` for one key in one window. */
export function windowCounter(keyId: string, kind: CounterKind, window: LimitWindow): string {
  return counterName(keyId, kind, window.id);
}

/** The concurrency slots of one key for one model. */
export function slotCounter(keyId: string, model: string): string {
  return counterName(keyId, 'slot', model);
}
