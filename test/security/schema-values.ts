import { branchesOf, flatten, typeOf, type SchemaNode } from './openapi-operations.ts';
import type { SeededRandom } from './seeded-random.ts';

/** Values the platform knows for a field name (configured models, existing ids), to get past the first checks. */
export type ValueHints = ReadonlyMap<string, readonly unknown[]>;

/** Strings a `pattern` of the document may want; the first that matches is used. */
const patternCandidates = ['12', '1', '0.5', '2025-01-01', 'fuzz_id-1', 'abc'];
const safeAlphabet = 'abcdefghijklmnopqrstuvwxyz0123456789 -_';

/**
 * A value the schema accepts (as far as JSON Schema can say): required properties always, optional
 * ones sometimes, lengths and bounds inside the limits, hinted values for known field names.
 */
export function validValue(schema: SchemaNode, random: SeededRandom, hints: ValueHints, name = '', depth = 0): unknown {
  const hinted = hints.get(name);
  if (hinted !== undefined && hinted.length > 0 && random.chance(0.85)) return random.pick(hinted);
  const flat = flatten(schema);
  if (flat.const !== undefined) return flat.const;
  if (flat.enum !== undefined && flat.enum.length > 0) return random.pick(flat.enum);
  const branches = branchesOf(flat);
  if (branches.length > 1 || branches[0] !== flat) return validValue(random.pick(branches), random, hints, name, depth);
  switch (typeOf(flat)) {
    case 'object':
      return validObject(flat, random, hints, depth);
    case 'array': {
      const low = flat.minItems ?? 0;
      const high = Math.min(flat.maxItems ?? low + 2, low + 2);
      const count = random.int(Math.max(low, Math.min(1, high)), high);
      return Array.from({ length: count }, () => validValue(flat.items ?? {}, random, hints, name, depth + 1));
    }
    case 'string':
      return validString(flat, random);
    case 'integer':
    case 'number':
      return validNumber(flat, random);
    case 'boolean':
      return random.chance(0.5);
    case 'null':
      return null;
    default:
      return 'fuzz';
  }
}

function validObject(schema: SchemaNode, random: SeededRandom, hints: ValueHints, depth: number): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  const required = new Set(schema.required ?? []);
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (required.has(key) || random.chance(depth < 2 ? 0.35 : 0.1)) value[key] = validValue(property, random, hints, key, depth + 1);
  }
  return value;
}

function validString(schema: SchemaNode, random: SeededRandom): string {
  if (schema.pattern !== undefined) {
    const pattern = new RegExp(schema.pattern, 'u');
    const match = patternCandidates.find((candidate) => pattern.test(candidate));
    if (match !== undefined) return match;
  }
  const low = schema.minLength ?? 0;
  const high = Math.min(schema.maxLength ?? low + 12, low + 12);
  const length = random.int(Math.max(low, Math.min(1, high)), high);
  return Array.from({ length }, () => safeAlphabet[random.int(0, safeAlphabet.length - 1)]).join('');
}

function validNumber(schema: SchemaNode, random: SeededRandom): number {
  const low = schema.minimum ?? (schema.exclusiveMinimum === undefined ? 0 : schema.exclusiveMinimum + 1);
  const high = schema.maximum ?? (schema.exclusiveMaximum === undefined ? low + 10 : schema.exclusiveMaximum - 1);
  const value = random.int(Math.ceil(low), Math.max(Math.ceil(low), Math.min(Math.floor(high), Math.ceil(low) + 10)));
  return typeOf(schema) === 'number' && random.chance(0.3) && value + 0.5 <= high ? value + 0.5 : value;
}

/** JSON text spliced in where this stands (nesting and keys that `JSON.stringify` cannot write). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON.stringify, with every RawJson written as its text. */
export function serializeJson(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (!(item instanceof RawJson)) return item;
    raws.push(item.text);
    return `@@raw-json-${raws.length - 1}@@`;
  });
  return text.replace(/"@@raw-json-(\d+)@@"/g, (_match, index: string) => raws[Number(index)] ?? 'null');
}

/** A value the schema may refuse, and what it is (for the report of a failing case). */
export interface HostileValue {
  readonly label: string;
  readonly value: unknown;
}

const depth = 10_000;
const hugeStringBytes = 2 * 1024 * 1024;

/** Values of the wrong JSON type. */
const wrongTypes: readonly HostileValue[] = [
  { label: 'null', value: null },
  { label: 'true', value: true },
  { label: 'zero', value: 0 },
  { label: 'minus one', value: -1 },
  { label: 'a fraction', value: 1.5 },
  { label: 'a huge number', value: 1e308 },
  { label: 'an unsafe integer', value: new RawJson('9007199254740993') },
  { label: 'a number beyond double', value: new RawJson('1e400') },
  { label: 'an empty string', value: '' },
  { label: 'a numeric string', value: '1' },
  { label: 'an empty array', value: [] },
  { label: 'an empty object', value: {} },
  { label: 'an array of null', value: [null] },
];

/** Strings that have broken parsers, loggers and headers elsewhere. */
const strangeStrings: readonly string[] = [
  '\u0000',
  '\ud800',
  'a\udfff\ud800b',
  'a\r\nx-injected: 1',
  '../../../../etc/passwd',
  '%00%ff%2e%2e%2f',
  '${jndi:ldap://127.0.0.1/a}',
  '<script>alert(1)</script>',
  '\u202egnp.exe',
  '🙂'.repeat(500),
  ' ',
  'NaN',
  '-0',
  '__proto__',
  'constructor',
  'http://127.0.0.1:1/',
  'http://169.254.169.254/latest/meta-data/',
  'file:///etc/passwd',
  'data:image/png;base64,',
  'data:;base64,@@@@',
];

const prototypeKeys: readonly HostileValue[] = [
  { label: '__proto__ as a key', value: new RawJson('{"__proto__":{"polluted":"yes"},"a":1}') },
  { label: 'constructor.prototype as keys', value: new RawJson('{"constructor":{"prototype":{"polluted":"yes"}}}') },
  { label: 'toString as a key', value: new RawJson('{"toString":"x","hasOwnProperty":1,"valueOf":null}') },
];

/** Values around the schema's own limits (length, bounds, item counts, enum). */
function boundaryValues(schema: SchemaNode): HostileValue[] {
  const flat = flatten(schema);
  const values: HostileValue[] = [];
  const add = (label: string, value: unknown) => values.push({ label, value });
  if (flat.minLength !== undefined && flat.minLength > 0) add(`minLength-1 (${flat.minLength - 1})`, 'a'.repeat(flat.minLength - 1));
  if (flat.minLength !== undefined) add(`minLength (${flat.minLength})`, 'a'.repeat(flat.minLength));
  if (flat.maxLength !== undefined) {
    add(`maxLength (${flat.maxLength})`, 'b'.repeat(flat.maxLength));
    add(`maxLength+1 (${flat.maxLength + 1})`, 'b'.repeat(flat.maxLength + 1));
  }
  for (const [keyword, bound] of [
    ['minimum', flat.minimum],
    ['maximum', flat.maximum],
    ['exclusiveMinimum', flat.exclusiveMinimum],
    ['exclusiveMaximum', flat.exclusiveMaximum],
  ] as const) {
    if (bound === undefined) continue;
    add(`${keyword}`, bound);
    add(`${keyword}-1`, bound - 1);
    add(`${keyword}+1`, bound + 1);
    add(`${keyword}+0.5`, bound + 0.5);
  }
  if (flat.minItems !== undefined && flat.minItems > 0)
    add(
      `minItems-1`,
      Array.from({ length: flat.minItems - 1 }, () => 'x'),
    );
  if (flat.maxItems !== undefined)
    add(
      `maxItems+1`,
      Array.from({ length: flat.maxItems + 1 }, () => 'x'),
    );
  for (const allowed of flat.enum ?? (flat.const === undefined ? [] : [flat.const])) {
    if (typeof allowed !== 'string') continue;
    add(`enum neighbour of '${allowed}' (upper case)`, allowed.toUpperCase());
    add(`enum neighbour of '${allowed}' (trailing space)`, `${allowed} `);
    add(`enum neighbour of '${allowed}' (one character more)`, `${allowed}x`);
    add(`enum neighbour of '${allowed}' (one character less)`, allowed.slice(0, -1));
  }
  return values;
}

/** Bounded but large: a 2 MiB string, 10k-element arrays, a 10k-key object, 10k-deep nesting. */
export function hugeValues(): HostileValue[] {
  const manyKeys = Array.from({ length: 10_000 }, (_, index) => `"k${index}":${index}`).join(',');
  return [
    { label: 'a 2 MiB string', value: 'x'.repeat(hugeStringBytes) },
    { label: 'a 10k-element array of strings', value: Array.from({ length: 10_000 }, (_, index) => `item-${index}`) },
    { label: 'a 10k-element array of objects', value: Array.from({ length: 10_000 }, () => ({ role: 'user', content: 'x' })) },
    { label: 'a 10k-key object', value: new RawJson(`{${manyKeys}}`) },
    { label: `arrays nested ${depth} deep`, value: new RawJson(`${'['.repeat(depth)}${']'.repeat(depth)}`) },
    { label: `objects nested ${depth} deep`, value: new RawJson(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`) },
    { label: `messages nested ${depth} deep`, value: new RawJson(`${'[{"role":"user","content":'.repeat(depth)}"x"${'}]'.repeat(depth)}`) },
  ];
}

/** One hostile value for a field of this schema, by category: wrong type, boundary, strange, prototype, huge. */
export function hostileValue(schema: SchemaNode, random: SeededRandom, allowHuge: boolean): HostileValue {
  const boundaries = boundaryValues(schema);
  const flat = flatten(schema);
  // Free-form JSON (a tool's parameters, custom_variables) is where deep nesting gets through the schema.
  if (allowHuge && typeOf(flat) === 'object' && flat.properties === undefined && random.chance(0.5)) return random.pick(hugeValues().slice(3));
  const roll = random.next();
  if (roll < 0.3) return random.pick(wrongTypes);
  if (roll < 0.55 && boundaries.length > 0) return random.pick(boundaries);
  if (roll < 0.75) {
    const text = random.pick(strangeStrings);
    return { label: `the string ${JSON.stringify(text.slice(0, 40))}`, value: text };
  }
  if (roll < 0.85) return random.pick(prototypeKeys);
  if (allowHuge) return random.pick(hugeValues());
  return random.pick(wrongTypes);
}
