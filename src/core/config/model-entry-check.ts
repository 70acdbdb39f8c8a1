import type { TLiteral, TObject, TUnion } from '@sinclair/typebox';
import { closestKey } from './closest-key.ts';
import { choiceProblem, schemaProblems, type ConfigProblem } from './config-problems.ts';
import { DeploymentExtrasSchema, RoutedModelEntrySchema } from './config.schema.ts';
import { defaultDeploymentName } from './model-deployments.ts';

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

  /**
   * The problems of the entry at key path `at` (`models.glm-4.7`); none for a valid one. A routed
   * entry (`deployments`) has each deployment checked like a single entry, at
   * `models.glm-4.7.deployments[1]`; `modelNames` are the file's models, which `fallbacks` must name.
   */
  problems(at: string, entry: Readonly<Record<string, unknown>>, modelNames: readonly string[] = []): ConfigProblem[] {
    if (!Object.hasOwn(entry, 'deployments')) return this.#engineProblems(at, entry);
    if (Object.hasOwn(entry, 'backend')) {
      return [{ key: `${at}.backend`, text: 'cannot stand beside deployments (give each deployment its backend)' }];
    }
    const problems = schemaProblems(RoutedModelEntrySchema, entry, at, 'a model with deployments');
    const deployments = Array.isArray(entry['deployments']) ? (entry['deployments'] as unknown[]) : [];
    const names = new Map<string, number>();
    for (const [index, deployment] of deployments.entries()) {
      if (deployment === null || typeof deployment !== 'object' || Array.isArray(deployment)) continue;
      const deploymentAt = `${at}.deployments[${index}]`;
      const { name, weight, priority, ...engine } = deployment as Record<string, unknown>;
      problems.push(...schemaProblems(DeploymentExtrasSchema, { name, weight, priority }, deploymentAt), ...this.#engineProblems(deploymentAt, engine));
      const effectiveName = typeof name === 'string' ? name : defaultDeploymentName(at.slice('models.'.length), index);
      const earlier = names.get(effectiveName);
      if (earlier !== undefined) {
        problems.push({
          key: `${deploymentAt}.name`,
          text: `'${effectiveName}' is the name of deployments[${earlier}] too; give each deployment its own name`,
        });
      }
      names.set(effectiveName, index);
    }
    const fallbacks = Array.isArray(entry['fallbacks']) ? (entry['fallbacks'] as unknown[]) : [];
    for (const [index, fallback] of fallbacks.entries()) {
      if (typeof fallback !== 'string') continue;
      if (`models.${fallback}` === at) problems.push({ key: `${at}.fallbacks[${index}]`, text: 'names this model itself' });
      else if (!modelNames.includes(fallback)) problems.push(choiceProblem(`${at}.fallbacks[${index}]`, modelNames, fallback));
    }
    return problems;
  }

  #engineProblems(at: string, entry: Readonly<Record<string, unknown>>): ConfigProblem[] {
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
