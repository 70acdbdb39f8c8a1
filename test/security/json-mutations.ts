import { branchesOf, flatten, type SchemaNode } from './openapi-operations.ts';
import { hostileValue, hugeValues, RawJson, type HostileValue } from './schema-values.ts';
import type { SeededRandom } from './seeded-random.ts';

/** A body (or value) with one thing broken, and the words that say what. */
export interface Mutation {
  readonly label: string;
  readonly value: unknown;
}

interface Target {
  readonly path: string;
  readonly container: Record<string, unknown> | unknown[];
  readonly key: string | number;
  readonly schema: SchemaNode;
}

/** The schema of property `key`, looked up in the node and in each branch of a union. */
function propertySchema(schema: SchemaNode, key: string): SchemaNode | undefined {
  for (const branch of [flatten(schema), ...branchesOf(flatten(schema)).map(flatten)]) {
    const found = branch.properties?.[key];
    if (found !== undefined) return found;
  }
  return undefined;
}

function propertyNames(schema: SchemaNode): string[] {
  const names = new Set<string>();
  for (const branch of [flatten(schema), ...branchesOf(flatten(schema)).map(flatten)]) {
    for (const name of Object.keys(branch.properties ?? {})) names.add(name);
  }
  return [...names];
}

function itemSchema(schema: SchemaNode): SchemaNode {
  for (const branch of [flatten(schema), ...branchesOf(flatten(schema)).map(flatten)]) if (branch.items !== undefined) return branch.items;
  return {};
}

/** Every place in the value where the schema says what belongs: present properties, absent ones, array items. */
function collectTargets(value: unknown, schema: SchemaNode, path: string, targets: Target[]): void {
  if (Array.isArray(value)) {
    const items = itemSchema(schema);
    value.forEach((item, index) => {
      targets.push({ path: `${path}[${index}]`, container: value, key: index, schema: items });
      collectTargets(item, items, `${path}[${index}]`, targets);
    });
    return;
  }
  if (value === null || typeof value !== 'object' || value instanceof RawJson) return;
  const record = value as Record<string, unknown>;
  for (const name of propertyNames(schema)) {
    const property = propertySchema(schema, name) ?? {};
    const childPath = path === '' ? name : `${path}.${name}`;
    targets.push({ path: childPath, container: record, key: name, schema: property });
    if (Object.hasOwn(record, name)) collectTargets(record[name], property, childPath, targets);
  }
}

/** Whole-body replacements: not an object, nested without end, prototype keys at the top. */
const wholeBodies: readonly HostileValue[] = [
  { label: 'the body is an array', value: [] },
  { label: 'the body is null', value: null },
  { label: 'the body is a string', value: 'body' },
  { label: 'the body is a number', value: 42 },
  { label: 'the body is an empty object', value: {} },
  { label: 'the body has __proto__ at the top', value: new RawJson('{"__proto__":{"model":"glm-4.7","polluted":"yes"}}') },
  { label: 'the body has constructor.prototype at the top', value: new RawJson('{"constructor":{"prototype":{"polluted":"yes"}}}') },
];

/**
 * A copy of a valid body with one hostile change: a field set to a hostile value (wrong type,
 * boundary, strange string, prototype key, huge or deep value), a required field removed, an
 * unknown field added, or the whole body replaced.
 */
export function mutateBody(valid: unknown, schema: SchemaNode, random: SeededRandom, allowHuge: boolean): Mutation {
  const roll = random.next();
  if (roll < 0.08) return random.pick(wholeBodies);
  if (roll < 0.12 && allowHuge) {
    const huge = random.pick(hugeValues());
    return { label: `the body is ${huge.label}`, value: huge.value };
  }
  const body = structuredClone(valid);
  if (roll < 0.18 && body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const record = body as Record<string, unknown>;
    const required = flatten(schema).required ?? [];
    const name =
      required.length > 0 && random.chance(0.7) ? random.pick(required) : random.pick(['__proto__', 'constructor', 'unknown_field', 'x'.repeat(300)]);
    if (Object.hasOwn(record, name)) {
      Reflect.deleteProperty(record, name);
      return { label: `required field '${name}' removed`, value: body };
    }
    Object.defineProperty(record, name, { value: { polluted: 'yes' }, enumerable: true, configurable: true, writable: true });
    return { label: `extra field '${name.slice(0, 40)}'`, value: body };
  }
  const targets: Target[] = [];
  collectTargets(body, schema, '', targets);
  if (targets.length === 0) return random.pick(wholeBodies);
  const target = random.pick(targets);
  const hostile = hostileValue(target.schema, random, allowHuge);
  (target.container as Record<string | number, unknown>)[target.key] = hostile.value;
  return { label: `${target.path} = ${hostile.label}`, value: body };
}
