import { invalidField } from '../../core/errors/api-error.ts';

/**
 * Deepest nesting accepted in free-form JSON that the server passes on (a tool's parameters
 * schema). JSON.parse reads any depth, but JSON.stringify recurses and overflows the stack at a
 * few thousand levels when the value is sent to an engine; real schemas stay far below this.
 */
const maxFreeFormDepth = 64;

/** Refuses a value nested deeper than `maxDepth` objects or arrays with 1214 naming the field. */
export function checkJsonDepth(value: unknown, field: string, maxDepth = maxFreeFormDepth): void {
  // Iterative on purpose: a recursive walk would overflow on the very values it is meant to refuse.
  const pending: { readonly item: unknown; readonly depth: number }[] = [{ item: value, depth: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.item === null || typeof next.item !== 'object') continue;
    if (next.depth > maxDepth) throw invalidField(field, `must not be nested deeper than ${maxDepth} levels`);
    for (const child of Object.values(next.item)) pending.push({ item: child, depth: next.depth + 1 });
  }
}
