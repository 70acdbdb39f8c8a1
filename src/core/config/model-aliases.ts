import { choiceProblem, type ConfigProblem } from './config-problems.ts';
import type { CatalogEntry } from './config.schema.ts';

/**
 * `models: { glm-4.7: { alias: glm-edge-1.5b-chat } }`: the name answers with the model it names,
 * which the file declares or which serves with no configuration. One line makes a client's usual
 * model name work on the local default.
 */
export function isAliasEntry(entry: Readonly<Record<string, unknown>>): boolean {
  return Object.hasOwn(entry, 'alias');
}

/** The problems of an alias entry at `at`: nothing beside `alias`, and a target that is a real model (not another alias). */
export function aliasProblems(at: string, entry: Readonly<Record<string, unknown>>, targets: readonly string[]): ConfigProblem[] {
  const problems: ConfigProblem[] = Object.keys(entry)
    .filter((key) => key !== 'alias')
    .map((key) => ({ key: `${at}.${key}`, text: 'cannot stand beside alias (the alias answers with the settings of the model it names)' }));
  const target = entry['alias'];
  if (`models.${String(target)}` === at) problems.push({ key: `${at}.alias`, text: 'names this model itself' });
  else if (typeof target !== 'string' || !targets.includes(target)) problems.push(choiceProblem(`${at}.alias`, targets, target));
  return problems;
}

/**
 * The file's models with each alias replaced by the very entry it names (the same object, so the
 * engine is built once and serves both names); `defaults` are the zero-configuration models.
 */
export function resolveAliases(models: Readonly<Record<string, unknown>>, defaults: Readonly<Record<string, CatalogEntry>>): Record<string, CatalogEntry> {
  const resolved = Object.create(null) as Record<string, CatalogEntry>;
  for (const [name, entry] of Object.entries(models)) if (!isAliasEntry(entry as Record<string, unknown>)) resolved[name] = entry as CatalogEntry;
  for (const [name, entry] of Object.entries(models)) {
    const target = (entry as Record<string, unknown>)['alias'];
    if (typeof target !== 'string') continue;
    const named = Object.hasOwn(resolved, target) ? resolved[target] : Object.hasOwn(defaults, target) ? defaults[target] : undefined;
    if (named !== undefined) resolved[name] = named;
  }
  return resolved;
}
