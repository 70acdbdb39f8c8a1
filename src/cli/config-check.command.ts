import { modelEntrySchema } from '../backends/index.ts';
import { ConfigError } from '../core/config/config-error.ts';
import { deploymentsOf } from '../core/config/model-deployments.ts';
import { loadConfigFile } from '../core/config/load-config.ts';
import { readSettings } from '../core/config/settings.ts';
import type { CliFlags } from './cli-flags.ts';

/**
 * Validates the environment and the config file without opening storage: every problem at once,
 * one line each naming the key (never its value), as start-up would refuse them.
 */
export async function runConfigCheck(flags: CliFlags): Promise<number> {
  try {
    const settings = readSettings(process.env, flags);
    if (settings.configPath === undefined) {
      console.log('No config file given (--config or MODEL_PLATFORM_CONFIG): only zero-configuration engines will serve.');
      return 0;
    }
    const config = loadConfigFile(settings.configPath, process.env, modelEntrySchema);
    const models = Object.entries(config.models ?? {});
    console.log(`${settings.configPath}: valid, ${models.length} model(s).`);
    for (const [name, entry] of models) {
      const deployments = deploymentsOf(name, entry);
      console.log(
        `  ${name} -> ${deployments.length === 1 ? deployments[0]?.entry.backend : deployments.map((deployment) => `${deployment.name} (${deployment.entry.backend})`).join(', ')}`,
      );
    }
    return 0;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) console.error(problem);
    console.error(error.problems.length === 1 ? '1 problem: not valid.' : `${error.problems.length} problems: not valid.`);
    return 1;
  }
}
