import type { TObject, TSchema } from '@sinclair/typebox';
import { Value, ValueErrorType, type ValueError } from '@sinclair/typebox/value';
import { closestKey } from './closest-key.ts';

/**
 * One thing wrong in the config file: the key path (`models.glm-4.7.baseUrl`) and what is wrong
 * with it. Never the value: a misspelled `apiKey` holds a secret, and these messages reach logs.
 */
export interface ConfigProblem {
  readonly key: string;
  readonly text: string;
}

/**
 * Every problem TypeBox finds in `value`, at most one per key (the first: a missing key is
 * "required", not also "not a string"). `at` is the key path of `value` in the file; `owner` names
 * what the keys belong to in messages ("backend zai"). A key that is unknown but close to an
 * allowed one gets "did you mean", and then the allowed key it stands for is not also reported as
 * missing: that is one mistake, not two.
 */
export function schemaProblems(schema: TSchema, value: unknown, at: string, owner?: string): ConfigProblem[] {
  const problems = new Map<string, string>();
  const suggested = new Set<string>();
  for (const error of Value.Errors(schema, value)) {
    const key = keyPath(at, error.path);
    if (problems.has(key)) continue;
    if (error.type === ValueErrorType.ObjectAdditionalProperties) {
      const allowed = Object.keys((error.schema as TObject).properties).filter((name) => name !== 'backend');
      const suggestion = closestKey(pointerSegments(error.path).at(-1) ?? '', allowed);
      if (suggestion !== undefined) suggested.add(keyPath(at, `${parentPointer(error.path)}/${suggestion}`));
      problems.set(key, unknownKeyText(allowed, suggestion, owner));
    } else if (error.type === ValueErrorType.Object) {
      problems.set(key, 'must be a mapping of keys to values');
    } else if (error.type === ValueErrorType.ObjectRequiredProperty) {
      problems.set(key, owner === undefined ? 'is required' : `is required by ${owner}`);
    } else {
      problems.set(key, describeRule(error));
    }
  }
  return [...problems].filter(([key, text]) => !(suggested.has(key) && text.startsWith('is required'))).map(([key, text]) => ({ key, text }));
}

/**
 * The problems in the order their keys appear in the file (a missing key where its mapping is),
 * the first of each key only: an unset environment variable is not also "not an http URL".
 */
export function inFileOrder(problems: readonly ConfigProblem[], document: unknown): ConfigProblem[] {
  const order = new Map<string, number>();
  const walk = (value: unknown, at: string) => {
    order.set(at, order.size);
    if (value !== null && typeof value === 'object') {
      for (const [name, item] of Object.entries(value)) walk(item, at === '' ? name : `${at}.${name}`);
    }
  };
  walk(document, '');
  const position = (key: string): number => {
    for (let at = key; ; at = at.includes('.') ? at.slice(0, at.lastIndexOf('.')) : '') {
      const found = order.get(at);
      if (found !== undefined || at === '') return found ?? 0;
    }
  };
  const firsts = new Map<string, ConfigProblem>();
  for (const problem of problems) if (!firsts.has(problem.key)) firsts.set(problem.key, problem);
  return [...firsts.values()].sort((a, b) => position(a.key) - position(b.key));
}

/** "must be one of …" for a value outside a fixed list, with "did you mean" when one is close. */
export function choiceProblem(key: string, choices: readonly string[], given: unknown): ConfigProblem {
  const suggestion = typeof given === 'string' ? closestKey(given, choices) : undefined;
  return { key, text: `must be one of ${choices.join(', ')}${suggestion === undefined ? '' : `; did you mean '${suggestion}'?`}` };
}

/** Turns a JSON pointer below `at` (`/glm-4.7/baseUrl`) into the YAML key path `models.glm-4.7.baseUrl`. */
function keyPath(at: string, pointer: string): string {
  const below = pointerSegments(pointer);
  return [...(at === '' ? [] : [at]), ...below].join('.') || '(root)';
}

function unknownKeyText(allowed: readonly string[], suggestion: string | undefined, owner: string | undefined): string {
  const unknown = owner === undefined ? 'is not a known key' : `is not a setting of ${owner}`;
  if (suggestion !== undefined) return `${unknown}; did you mean '${suggestion}'?`;
  return allowed.length === 0 ? `${unknown} (it takes none)` : `${unknown} (known: ${allowed.join(', ')})`;
}

/** Lists the allowed values where the rule is a choice of literals. */
function describeRule(error: ValueError): string {
  if (error.value === undefined) return 'is required';
  const branches = (error.schema as { anyOf?: { const?: unknown }[] }).anyOf ?? [];
  const choices = branches.map((branch) => branch.const).filter((choice) => typeof choice === 'string');
  return choices.length > 0 ? `must be one of ${choices.join(', ')}` : error.message;
}

function pointerSegments(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentPointer(pointer: string): string {
  return pointer.slice(0, pointer.lastIndexOf('/'));
}
