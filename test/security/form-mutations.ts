import type { RawPart } from './multipart-body.ts';
import { flatten, type SchemaNode } from './openapi-operations.ts';
import { hostileValue, RawJson, serializeJson, validValue, type ValueHints } from './schema-values.ts';
import type { SeededRandom } from './seeded-random.ts';

export interface FormCase {
  readonly label: string;
  readonly parts: readonly RawPart[];
  /** False: the body ends without its closing boundary. */
  readonly closing: boolean;
}

/** Form fields are text: how a JSON value is written into a field. */
function asFieldText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof RawJson) return value.text;
  return serializeJson(value);
}

/** A form the schema accepts, encoded as the Python SDK does (`name[]` for lists, `name[key]` for dicts). */
export function validForm(schema: SchemaNode, random: SeededRandom, hints: ValueHints, fileBytes: Uint8Array, fileName: string): RawPart[] {
  const flat = flatten(schema);
  const value = validValue(flat, random, hints) as Record<string, unknown>;
  const parts: RawPart[] = [];
  for (const [name, property] of Object.entries(flat.properties ?? {})) {
    if (property.format === 'binary') {
      if ((flat.required ?? []).includes(name) || random.chance(0.8))
        parts.push({ name, value: fileBytes, filename: fileName, contentType: 'application/octet-stream' });
      continue;
    }
    if (!Object.hasOwn(value, name)) continue;
    const item = value[name];
    if (Array.isArray(item)) for (const element of item) parts.push({ name: `${name}[]`, value: asFieldText(element) });
    else if (item !== null && typeof item === 'object')
      for (const [key, inner] of Object.entries(item)) parts.push({ name: `${name}[${key}]`, value: asFieldText(inner) });
    else parts.push({ name, value: String(item) });
  }
  return parts;
}

const oddFieldNames = [
  '__proto__',
  'constructor',
  'prototype',
  '__proto__[polluted]',
  'constructor[prototype][polluted]',
  'hotwords[__proto__]',
  'sensitive_word_check[__proto__]',
  'hotwords[][]',
  '[]',
  '',
];
const oddFileNames = [
  '',
  '../../../../etc/passwd',
  'a\r\nContent-Type: text/html',
  '🙂'.repeat(300),
  'x'.repeat(5000),
  'nul\u0000.wav',
  '.',
  'C:\\windows\\win.ini',
];

/** A valid form with one hostile change: a field value, an odd field or file name, repeated or missing parts, many or huge fields. */
export function mutateForm(valid: readonly RawPart[], schema: SchemaNode, random: SeededRandom, allowHuge: boolean): FormCase {
  const parts = [...valid];
  const flat = flatten(schema);
  const fieldNames = Object.keys(flat.properties ?? {});
  const roll = random.next();
  if (roll < 0.35 && fieldNames.length > 0) {
    const name = random.pick(fieldNames);
    const hostile = hostileValue(flat.properties?.[name] ?? {}, random, allowHuge);
    const kept = parts.filter((part) => part.name !== name && !part.name.startsWith(`${name}[`));
    return { label: `field ${name} = ${hostile.label}`, parts: [...kept, { name, value: asFieldText(hostile.value) }], closing: true };
  }
  if (roll < 0.5) {
    const name = random.pick(oddFieldNames);
    return { label: `field named ${JSON.stringify(name)}`, parts: [...parts, { name, value: random.pick(['x', '{"polluted":"yes"}', '1']) }], closing: true };
  }
  if (roll < 0.6) {
    const filename = random.pick(oddFileNames);
    const file = parts.find((part) => part.filename !== undefined);
    const others = parts.filter((part) => part !== file);
    return {
      label: `file name ${JSON.stringify(filename.slice(0, 40))}`,
      parts: [...others, { name: file?.name ?? 'file', value: file?.value ?? 'x', filename }],
      closing: true,
    };
  }
  if (roll < 0.68) {
    const dropped = random.pick(parts.length > 0 ? parts : [{ name: 'none', value: '' }]);
    return { label: `part '${dropped.name}' missing`, parts: parts.filter((part) => part !== dropped), closing: true };
  }
  if (roll < 0.76 && parts.length > 0) {
    const repeated = random.pick(parts);
    return { label: `part '${repeated.name}' sent three times`, parts: [...parts, repeated, repeated], closing: true };
  }
  if (roll < 0.82) {
    return {
      label: 'a file part under a text field name',
      parts: [...parts, { name: random.pick(fieldNames.length > 0 ? fieldNames : ['model']), value: 'abc', filename: 'a.txt', contentType: 'text/plain' }],
      closing: true,
    };
  }
  if (roll < 0.86) {
    return {
      label: 'a part without Content-Disposition',
      parts: [...parts, { name: '', value: 'orphan', rawHeaders: 'Content-Type: text/plain\r\n' }],
      closing: true,
    };
  }
  if (roll < 0.9) return { label: 'no closing boundary', parts, closing: false };
  if (roll < 0.95 && allowHuge) {
    return { label: '2000 small fields', parts: [...parts, ...Array.from({ length: 2000 }, (_, index) => ({ name: `f${index}`, value: 'v' }))], closing: true };
  }
  if (allowHuge)
    return {
      label: 'a 2 MiB text field',
      parts: [...parts, { name: random.pick(fieldNames.length > 0 ? fieldNames : ['x']), value: 'x'.repeat(2 * 1024 * 1024) }],
      closing: true,
    };
  return {
    label: 'a part with a broken header line',
    parts: [...parts, { name: '', value: 'x', rawHeaders: 'Content-Disposition form-data name=broken\r\n' }],
    closing: true,
  };
}
