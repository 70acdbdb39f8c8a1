/** The JSON-schema keywords the fuzzer reads from the OpenAPI document. */
export interface SchemaNode {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly required?: readonly string[];
  readonly items?: SchemaNode;
  readonly anyOf?: readonly SchemaNode[];
  readonly oneOf?: readonly SchemaNode[];
  readonly allOf?: readonly SchemaNode[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly pattern?: string;
  readonly format?: string;
}

export interface OperationParameter {
  readonly name: string;
  readonly required: boolean;
  readonly schema: SchemaNode;
}

/** One operation of the document, as the fuzzer needs it. */
export interface FuzzOperation {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The documented path, e.g. `/paas/v4/files/{id}`. */
  readonly path: string;
  readonly operationId: string;
  readonly pathParameters: readonly OperationParameter[];
  readonly queryParameters: readonly OperationParameter[];
  readonly body: { readonly mediaType: 'application/json' | 'multipart/form-data'; readonly schema: SchemaNode } | undefined;
}

interface OpenApiDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, OpenApiOperation>>>>;
}

interface OpenApiOperation {
  readonly operationId?: string;
  readonly parameters?: readonly { readonly name: string; readonly in: string; readonly required?: boolean; readonly schema?: SchemaNode }[];
  readonly requestBody?: { readonly content?: Readonly<Record<string, { readonly schema?: SchemaNode }>> };
}

const methods = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Every operation of the document; fails on a body media type the fuzzer does not know how to send. */
export function readOperations(document: unknown): FuzzOperation[] {
  const paths = (document as OpenApiDocument).paths;
  const operations: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of methods) {
      const operation = item[method];
      if (operation === undefined) continue;
      const parameters = operation.parameters ?? [];
      const parameter = (where: string) =>
        parameters
          .filter((candidate) => candidate.in === where)
          .map((candidate) => ({ name: candidate.name, required: candidate.required === true, schema: candidate.schema ?? {} }));
      operations.push({
        method: method.toUpperCase() as FuzzOperation['method'],
        path,
        operationId: operation.operationId ?? `${method} ${path}`,
        pathParameters: parameter('path'),
        queryParameters: parameter('query'),
        body: readBody(path, operation),
      });
    }
  }
  return operations;
}

function readBody(path: string, operation: OpenApiOperation): FuzzOperation['body'] {
  const content = operation.requestBody?.content;
  if (content === undefined) return undefined;
  for (const mediaType of ['application/json', 'multipart/form-data'] as const) {
    const entry = content[mediaType];
    if (entry !== undefined) return { mediaType, schema: entry.schema ?? {} };
  }
  throw new Error(`${path}: the fuzzer cannot send any of ${Object.keys(content).join(', ')}`);
}

/** The schema's branches: anyOf/oneOf alternatives, or the schema itself. */
export function branchesOf(schema: SchemaNode): readonly SchemaNode[] {
  return schema.anyOf ?? schema.oneOf ?? [schema];
}

/** allOf folded into one node (properties and required merged), the rest kept. */
export function flatten(schema: SchemaNode): SchemaNode {
  if (schema.allOf === undefined) return schema;
  const parts = schema.allOf.map(flatten);
  const rest = Object.fromEntries(Object.entries(schema).filter(([keyword]) => keyword !== 'allOf')) as SchemaNode;
  const type = schema.type ?? parts.find((part) => part.type !== undefined)?.type;
  return {
    ...rest,
    ...(type === undefined ? {} : { type }),
    properties: Object.assign({}, schema.properties, ...parts.map((part) => part.properties ?? {})) as Record<string, SchemaNode>,
    required: [...(schema.required ?? []), ...parts.flatMap((part) => part.required ?? [])],
  };
}

/** The first JSON type a node declares (the type of its first branch for a union). */
export function typeOf(schema: SchemaNode): string | undefined {
  const flat = flatten(schema);
  if (flat.const !== undefined) return typeof flat.const === 'object' ? 'object' : typeof flat.const;
  if (flat.enum !== undefined && flat.enum.length > 0) return typeof flat.enum[0];
  if (typeof flat.type === 'string') return flat.type;
  if (Array.isArray(flat.type)) return flat.type[0] as string | undefined;
  if (flat.properties !== undefined) return 'object';
  const first = (flat.anyOf ?? flat.oneOf)?.[0];
  return first === undefined ? undefined : typeOf(first);
}
