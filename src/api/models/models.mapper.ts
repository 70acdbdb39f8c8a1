import type { KeyPolicy } from '../../core/limits/key-policy.ts';
import type { ModelObject } from './models.schema.ts';

/**
 * The served models a key may call, sorted by name: all of them without a `models` list in its
 * policy, else those the list names (a listed name this server does not serve is left out).
 */
export function callableModels(served: readonly string[], policy: KeyPolicy | undefined): string[] {
  const allowed = policy?.models === undefined ? undefined : new Set(policy.models);
  return served.filter((name) => allowed === undefined || allowed.has(name)).sort();
}

export function toModelObject(name: string, created: number): ModelObject {
  return { id: name, object: 'model', created, owned_by: 'model-platform' };
}
