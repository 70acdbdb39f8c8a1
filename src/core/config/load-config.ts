import { readFileSync } from 'node:fs';
import { Value, type ValueError } from '@sinclair/typebox/value';
import { parse as parseYaml, YAMLError } from 'yaml';
import { ConfigError } from './config-error.ts';
import { PlatformConfigSchema, type ModelEntry, type PlatformConfig } from './config.schema.ts';

/** Reads, interpolates and validates the YAML config file; throws ConfigError naming the bad key. */
export function loadConfigFile(path: string, environment: NodeJS.ProcessEnv = process.env): PlatformConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${path}: cannot read the config file (${(error as Error).message})`);
  }
  return parseConfigText(text, path, environment);
}

export function parseConfigText(text: string, source: string, environment: NodeJS.ProcessEnv): PlatformConfig {
  let document: unknown;
  try {
    document = parseYaml(text) ?? {};
  } catch (error) {
    throw new ConfigError(`${source}: not valid YAML (${describeYamlError(error)})`);
  }
  const interpolated = interpolate(document, '', source, environment);
  const firstError = Value.Errors(PlatformConfigSchema, interpolated).First();
  if (firstError) {
    throw new ConfigError(`${source}: key '${describeKey(firstError.path)}': ${describeRule(firstError)}`);
  }
  const config = interpolated as PlatformConfig;
  // Model names are looked up with the caller's `model` field: 'constructor' must find nothing.
  return config.models === undefined ? config : { ...config, models: Object.assign(Object.create(null) as Record<string, ModelEntry>, config.models) };
}

/** `${NAME}` in a string value is replaced by the environment variable; a missing one is an error. */
function interpolate(value: unknown, path: string, source: string, environment: NodeJS.ProcessEnv): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => {
      const replacement = environment[name];
      if (replacement === undefined) {
        throw new ConfigError(`${source}: ${path || '(root)'}: environment variable ${name} is not set`);
      }
      return replacement;
    });
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => interpolate(item, `${path}[${index}]`, source, environment));
  }
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        interpolate(item, path ? `${path}.${key}` : key, source, environment),
      ]),
    );
  }
  return value;
}

/** Lists the allowed values where the rule is a choice of literals (backend kinds). */
function describeRule(error: ValueError): string {
  if (error.value === undefined) return 'is required';
  const branches = (error.schema as { anyOf?: { const?: unknown }[] }).anyOf ?? [];
  const choices = branches.map((branch) => branch.const).filter((value) => typeof value === 'string');
  return choices.length > 0 ? `must be one of ${choices.join(', ')}` : error.message;
}

/**
 * Turns a JSON pointer (`/models/glm-4.7/baseUrl`) into the YAML key path `models.glm-4.7.baseUrl`.
 * The value is never shown: a misspelled `apiKey` holds a secret, and these messages reach logs.
 */
function describeKey(pointer: string): string {
  const key = pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
  return key || '(root)';
}

/** The YAML parser's message quotes the offending source lines, which may hold secrets: only where and what. */
function describeYamlError(error: unknown): string {
  if (error instanceof YAMLError) {
    const position = error.linePos?.[0];
    return position === undefined ? error.code : `${error.code} at line ${position.line}, column ${position.col}`;
  }
  return 'unreadable';
}
