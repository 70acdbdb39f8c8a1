import type { GbnfJsonSchema, Llama, LlamaGrammar } from 'node-llama-cpp';
import type { FunctionTool } from '../../core/chat/chat-types.ts';

/** A bounded number of compiled grammars is kept: agents send the same tools on every turn. */
const cachedGrammarLimit = 32;

/**
 * The grammars that hold the model to structured output: any JSON object for `json_object`, and
 * `{"name": <a declared tool>, "arguments": <that tool's parameters>}` for a tool call. They are
 * built from JSON Schema by node-llama-cpp, which knows a subset of it; `toGrammarSchema` maps the
 * common spellings it lacks onto ones it has. What the grammar cannot say (`pattern`, `minimum`,
 * integers without exponents) is checked on the output afterwards (tool-call-reader.ts).
 */
export class OutputGrammars {
  readonly #llama: Llama;
  readonly #cache = new Map<string, Promise<LlamaGrammar>>();

  constructor(llama: Llama) {
    this.#llama = llama;
  }

  jsonObject(): Promise<LlamaGrammar> {
    return this.#grammarFor({ type: 'object', additionalProperties: true });
  }

  toolCall(tools: readonly FunctionTool[]): Promise<LlamaGrammar> {
    const calls = tools.map((tool) => ({
      type: 'object',
      properties: {
        name: { const: tool.name },
        arguments: tool.parameters === undefined ? { type: 'object', properties: {} } : toGrammarSchema(tool.parameters),
      },
      required: ['name', 'arguments'],
    }));
    return this.#grammarFor(calls.length === 1 ? calls[0] : { oneOf: calls });
  }

  #grammarFor(schema: unknown): Promise<LlamaGrammar> {
    const key = JSON.stringify(schema);
    let grammar = this.#cache.get(key);
    if (grammar === undefined) {
      grammar = this.#llama.createGrammarForJsonSchema<GbnfJsonSchema>(schema as GbnfJsonSchema);
      grammar.catch(() => this.#cache.delete(key));
      if (this.#cache.size >= cachedGrammarLimit) this.#cache.delete(this.#cache.keys().next().value as string);
      this.#cache.set(key, grammar);
    }
    return grammar;
  }
}

/**
 * JSON Schema → the subset node-llama-cpp turns into a grammar. It reads a keyword it does not know
 * as "null", so `anyOf` becomes `oneOf` (the same set of values for a generator), a one-item
 * `allOf` becomes its item, and draft-07 `definitions` become `$defs`.
 */
function toGrammarSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toGrammarSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  let source = schema as Record<string, unknown>;
  const allOf = source['allOf'];
  if (Array.isArray(allOf) && allOf.length === 1 && typeof allOf[0] === 'object' && allOf[0] !== null) {
    source = { ...withoutKeys(source, ['allOf']), ...(allOf[0] as Record<string, unknown>) };
  }
  // The schema's keys are the caller's: entries, then own properties (Object.fromEntries never reaches a prototype).
  const converted: [string, unknown][] = [];
  for (const [key, value] of Object.entries(source)) {
    if (key === '$schema' || key === '$id') continue;
    const renamed = key === 'anyOf' ? 'oneOf' : key === 'definitions' ? '$defs' : key;
    if (key === '$ref' && typeof value === 'string') converted.push([renamed, value.replace('#/definitions/', '#/$defs/')]);
    else if (key === 'properties' || key === '$defs' || key === 'definitions') converted.push([renamed, mapValues(value, toGrammarSchema)]);
    else if (key === 'const' || key === 'enum') converted.push([renamed, value]);
    else converted.push([renamed, toGrammarSchema(value)]);
  }
  return Object.fromEntries(converted);
}

export function withoutKeys(object: Readonly<Record<string, unknown>>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([key]) => !keys.includes(key)));
}

function mapValues(value: unknown, map: (item: unknown) => unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, map(item)]));
}
