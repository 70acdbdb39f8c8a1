import type { TLiteral, TObject, TUnion } from '@sinclair/typebox';
import { closestKey } from './closest-key.ts';
import { choiceProblem, schemaProblems, type ConfigProblem } from './config-problems.ts';

/**
 * The settings schemas of the engine kinds, one object schema each, told apart by the literal of
 * its `backend` key (a discriminated union). The engine table builds it; the platform core knows
 * no engine.
 */
export type ModelEntrySchema = TUnion<TObject[]>;

/**
 * Checks the config file's model entries, each against the settings schema of its `backend`:
 * required settings of that kind, settings it does not take (with "did you mean"), and each
 * setting's rule, all at once.
 */
export class ModelEntryCheck {
  readonly #settingsByKind: ReadonlyMap<string, TObject>;

  constructor(schema: ModelEntrySchema) {
    this.#settingsByKind = new Map(schema.anyOf.map((settings) => [backendKindOf(settings), settings]));
  }

  /** The problems of the entry at key path `at` (`models.glm-4.7`); none for a valid one. */
  problems(at: string, entry: Readonly<Record<string, unknown>>): ConfigProblem[] {
    const kind = entry['backend'];
    const settings = typeof kind === 'string' ? this.#settingsByKind.get(kind) : undefined;
    const kinds = [...this.#settingsByKind.keys()];
    if (kind === undefined) {
      // Without a kind the other keys cannot be checked, except as a misspelled `backend`.
      const misspelled = Object.keys(entry).find((name) => closestKey(name, ['backend']) !== undefined);
      if (misspelled !== undefined) return [{ key: `${at}.${misspelled}`, text: "is not a known key; did you mean 'backend'?" }];
      return [{ key: `${at}.backend`, text: `is required (one of ${kinds.join(', ')})` }];
    }
    if (settings === undefined) return [choiceProblem(`${at}.backend`, kinds, kind)];
    return schemaProblems(settings, entry, at, `backend ${String(kind)}`);
  }
}

function backendKindOf(settings: TObject): string {
  const kind = (settings.properties['backend'] as TLiteral | undefined)?.const;
  if (typeof kind !== 'string') throw new TypeError('every engine settings schema needs `backend: Type.Literal(kind)`');
  return kind;
}
