import { readFileSync } from 'node:fs';
import { parse as parseYaml, YAMLError } from 'yaml';
import { ConfigError } from './config-error.ts';
import { inFileOrder, schemaProblems, type ConfigProblem } from './config-problems.ts';
import { PlatformConfigSchema, type PlatformConfig } from './config.schema.ts';
import { ModelEntryCheck, type ModelEntrySchema } from './model-entry-check.ts';
import { aliasProblems, isAliasEntry, resolveAliases } from './model-aliases.ts';
import { zeroConfigModels } from '../models/zero-config-models.ts';

/**
 * Reads, interpolates and validates the YAML config file; throws one ConfigError naming every bad
 * key. `modelEntries` is the engine table's union of settings schemas (the composition root's).
 */
export function loadConfigFile(path: string, environment: NodeJS.ProcessEnv, modelEntries: ModelEntrySchema): PlatformConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${path}: cannot read the config file (${(error as Error).message})`);
  }
  return parseConfigText(text, path, environment, modelEntries);
}

export function parseConfigText(text: string, source: string, environment: NodeJS.ProcessEnv, modelEntries: ModelEntrySchema): PlatformConfig {
  let document: unknown;
  try {
    document = parseYaml(text) ?? {};
  } catch (error) {
    throw new ConfigError(`${source}: not valid YAML (${describeYamlError(error)})`);
  }
  const problems: ConfigProblem[] = [];
  const interpolated = interpolate(document, '', environment, problems);
  problems.push(...schemaProblems(PlatformConfigSchema, interpolated, ''));
  const models = isMapping(interpolated) ? interpolated['models'] : undefined;
  if (isMapping(models)) {
    const check = new ModelEntryCheck(modelEntries);
    const aliasTargets = [
      ...new Set([
        ...Object.keys(zeroConfigModels),
        ...Object.entries(models).flatMap(([name, entry]) => (isMapping(entry) && !isAliasEntry(entry) ? [name] : [])),
      ]),
    ];
    for (const [name, entry] of Object.entries(models)) {
      if (!isMapping(entry)) continue;
      if (isAliasEntry(entry)) problems.push(...aliasProblems(`models.${name}`, entry, aliasTargets));
      else problems.push(...check.problems(`models.${name}`, entry, Object.keys(models)));
    }
  }
  if (problems.length > 0) {
    const lines = inFileOrder(problems, interpolated).map((problem) => `${source}: key '${problem.key}': ${problem.text}`);
    throw new ConfigError(lines.join('\n'), lines);
  }
  const config = interpolated as PlatformConfig;
  // Model names are looked up with the caller's `model` field: 'constructor' must find nothing (resolveAliases builds a null-prototype map).
  return config.models === undefined ? config : { ...config, models: resolveAliases(config.models, zeroConfigModels) };
}

/**
 * `${NAME}` in a string value is replaced by the environment variable; a missing one is a problem
 * (and the text stays as written, so the rest of the file is still checked).
 */
function interpolate(value: unknown, path: string, environment: NodeJS.ProcessEnv, problems: ConfigProblem[]): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (match, name: string) => {
      const replacement = environment[name];
      if (replacement !== undefined) return replacement;
      problems.push({ key: path || '(root)', text: `environment variable ${name} is not set` });
      return match;
    });
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => interpolate(item, `${path}[${index}]`, environment, problems));
  }
  if (isMapping(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolate(item, path ? `${path}.${key}` : key, environment, problems)]));
  }
  return value;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The YAML parser's message quotes the offending source lines, which may hold secrets: only where and what. */
function describeYamlError(error: unknown): string {
  if (error instanceof YAMLError) {
    const position = error.linePos?.[0];
    return position === undefined ? error.code : `${error.code} at line ${position.line}, column ${position.col}`;
  }
  return 'unreadable';
}
