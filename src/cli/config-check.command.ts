import { dirname } from 'node:path';
import { modelEntrySchema } from '../backends/model-entry-schema.ts';
import { ConfigError } from '../core/config/config-error.ts';
import type { CatalogEntry } from '../core/config/config.schema.ts';
import { deploymentsOf, engineAddressOf, isRoutedEntry } from '../core/config/model-deployments.ts';
import { loadConfigFile } from '../core/config/load-config.ts';
import { referenceProblems } from '../core/config/config-references.ts';
import { zeroConfigModels } from '../core/models/zero-config-models.ts';
import { readSettings } from '../core/config/settings.ts';
import type { CliFlags } from './cli-flags.ts';

/**
 * Validates the environment and the config file without opening storage: every problem at once,
 * one line each naming the key (never its value), as start-up would refuse them. With `probe`,
 * also asks every deployment of every model whether it answers (config check --probe): exit code
 * 1 when a model has no deployment that does.
 */
export async function runConfigCheck(flags: CliFlags & { readonly probe?: boolean | undefined }): Promise<number> {
  let models: [string, CatalogEntry][];
  let configPath: string;
  try {
    const settings = readSettings(process.env, flags);
    if (settings.configPath === undefined) {
      console.log('No config file given (--config or MODEL_PLATFORM_CONFIG): only the zero-configuration models will serve.');
      return 0;
    }
    configPath = settings.configPath;
    const config = loadConfigFile(configPath, process.env, modelEntrySchema);
    models = Object.entries(config.models ?? {});
    const problems = referenceProblems(config, { ...zeroConfigModels, ...config.models }, dirname(configPath));
    if (problems.length > 0) {
      const lines = problems.map((problem) => `${configPath}: key '${problem.key}': ${problem.text}`);
      throw new ConfigError(lines.join('\n'), lines);
    }
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) console.error(problem);
    console.error(error.problems.length === 1 ? '1 problem: not valid.' : `${error.problems.length} problems: not valid.`);
    return 1;
  }
  console.log(`${configPath}: valid, ${models.length} model(s).`);
  for (const [name, entry] of models) console.log(`  ${name} -> ${describeEntry(name, entry)}`);
  if (flags.probe !== true) return 0;
  return probeAll(models, dirname(configPath));
}

async function probeAll(models: readonly [string, CatalogEntry][], configDir: string): Promise<number> {
  // Only --probe talks to engines: the HTTP client and the probes load for it alone.
  const [{ backendFactories }, { engineDispatcher }, { formatProbeTable, probeDeployments }] = await Promise.all([
    import('../backends/index.ts'),
    import('../backends/engine-http/engine-dispatcher.ts'),
    import('./probe-deployments.ts'),
  ]);
  const probes = await probeDeployments(models, backendFactories, configDir);
  // The probes' keep-alive connections would hold this one-shot process open for seconds.
  await engineDispatcher.close();
  console.log('');
  console.log(formatProbeTable(probes));
  const unreachable = models.map(([name]) => name).filter((name) => !probes.some((probe) => probe.model === name && probe.reachable));
  if (unreachable.length === 0) {
    console.log(`Every model has a reachable deployment (${probes.length} deployment(s) probed).`);
    return 0;
  }
  console.error(`No reachable deployment: ${unreachable.join(', ')}.`);
  return 1;
}

/** The engine kind of a single-engine entry; for several deployments, their names and kinds. */
function describeEntry(name: string, entry: CatalogEntry): string {
  if (!isRoutedEntry(entry)) return entry.backend;
  const deployments = deploymentsOf(name, entry).map((deployment) => {
    const address = engineAddressOf(deployment.entry);
    return `${deployment.name} (${deployment.entry.backend}${address === undefined ? '' : ` at ${address}`})`;
  });
  return `${deployments.length} deployment(s): ${deployments.join(', ')}`;
}
