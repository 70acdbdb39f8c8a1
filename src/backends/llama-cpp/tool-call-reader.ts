import { randomUUID } from 'node:crypto';
import { createAjv, type Ajv } from '../../core/json-schema/create-ajv.ts';
import type { FunctionTool, ToolCall } from '../../core/chat/chat-types.ts';
import { invalidField } from '../../core/errors/api-error.ts';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import { withoutKeys } from './output-grammars.ts';

type Validator = ReturnType<Ajv['compile']>;

/** Validators of tool parameter schemas, by schema text; agents send the same tools every turn. */
const validators = new Map<string, Validator>();
const cachedValidatorLimit = 128;

const ajv = createAjv(false);

/**
 * Reads the grammar-constrained output of a tool-call turn as a call of a declared tool. The
 * grammar makes the shape right, but it is looser than JSON Schema (integers with exponents,
 * no `pattern` or `minimum`), so the arguments are validated against the tool's schema: output
 * claimed as a tool call is always a valid call. Arguments are sent re-serialized (`1e2` → `100`).
 */
export function readToolCall(text: string, tools: readonly FunctionTool[], modelName: string): ToolCall {
  const fail = (why: string): EngineFailure =>
    new EngineFailure('bad-answer', modelName, `The engine for model '${modelName}' produced a tool call that is not valid (${why}); please try again.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw fail(`not JSON: ${text.slice(0, 200)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw fail('not an object');
  const { name, arguments: callArguments } = parsed as Record<string, unknown>;
  const tool = tools.find((candidate) => candidate.name === name);
  if (tool === undefined) throw fail(`no declared tool is named ${JSON.stringify(name)}`);
  // JSON.parse reads 1e400 as Infinity, which JSON cannot carry (it would be sent as null).
  if (hasNonFiniteNumber(callArguments)) throw fail(`arguments of '${tool.name}' hold a number out of range`);
  const validate = validatorFor(tool);
  if (!validate(callArguments)) throw fail(`arguments of '${tool.name}' ${ajv.errorsText(validate.errors, { dataVar: 'arguments' })}`);
  return { id: `call_${randomUUID().replaceAll('-', '')}`, name: tool.name, arguments: JSON.stringify(callArguments) };
}

/** Throws 1214 for a tool whose parameters are not a JSON Schema, before anything is generated. */
export function checkToolSchemas(tools: readonly FunctionTool[]): void {
  tools.forEach((tool) => validatorFor(tool));
}

function validatorFor(tool: FunctionTool): Validator {
  // A tool without parameters is called with an empty object.
  const schema = tool.parameters ?? { type: 'object', properties: {}, additionalProperties: false };
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (validate === undefined) {
    // `$id` would be registered globally (a second copy then fails) and `$schema` may name a draft this Ajv lacks.
    try {
      validate = ajv.compile(withoutKeys(schema, ['$id', '$schema']));
    } catch (error) {
      // The caller's tools are at fault, not the engine.
      throw invalidField('tools', `the parameters of function '${tool.name}' are not a usable JSON Schema (${(error as Error).message})`);
    }
    if (validators.size >= cachedValidatorLimit) validators.delete(validators.keys().next().value as string);
    validators.set(key, validate);
  }
  return validate;
}

function hasNonFiniteNumber(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (typeof value !== 'object' || value === null) return false;
  return Object.values(value).some(hasNonFiniteNumber);
}
