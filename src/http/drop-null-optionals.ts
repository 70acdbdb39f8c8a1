/** The JSON-schema keywords this walk reads. */
interface SchemaNode {
  readonly type?: unknown;
  readonly properties?: Record<string, SchemaNode>;
  readonly required?: readonly string[];
  readonly items?: SchemaNode;
  readonly anyOf?: readonly SchemaNode[];
}

/**
 * Official clients send JSON `null` for fields they leave unset (docs/wire.md §1.5, §1.9).
 * Removes every `null` at a property the schema declares, so that null means absent: optional
 * fields then pass and required ones are reported missing. Properties the schema does not describe
 * (free-form JSON such as a function's `parameters`) are left untouched.
 */
export function dropNullOptionals(schema: SchemaNode, value: unknown): void {
  if (Array.isArray(value)) {
    if (schema.items !== undefined) for (const item of value) dropNullOptionals(schema.items, item);
    if (schema.anyOf !== undefined) for (const branch of schema.anyOf) if (branch.type === 'array') dropNullOptionals(branch, value);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (schema.anyOf !== undefined) for (const branch of schema.anyOf) if (branch.type === 'object') dropNullOptionals(branch, value);
  const properties = schema.properties;
  if (properties === undefined) return;
  const record = value as Record<string, unknown>;
  // for…in rather than Object.entries: no array of pairs per object of every body. A property
  // deleted while the walk runs is one already visited, which the walk allows.
  for (const key in record) {
    // The key is the caller's: `constructor` must not find Object's constructor as a schema.
    if (!Object.hasOwn(record, key) || !Object.hasOwn(properties, key)) continue;
    const item = record[key];
    const propertySchema = properties[key] as SchemaNode;
    if (item === null) Reflect.deleteProperty(record, key);
    else dropNullOptionals(propertySchema, item);
  }
}
