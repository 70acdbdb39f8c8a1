import { loadConfigFile } from '../core/config/load-config.ts';
import { readSettings } from '../core/config/settings.ts';
import type { CliFlags } from './cli-flags.ts';

/** Validates the environment and the config file without opening storage. */
export async function runConfigCheck(flags: CliFlags): Promise<number> {
  const settings = readSettings(process.env, flags);
  if (settings.configPath === undefined) {
    console.log('No config file given (--config or MODEL_PLATFORM_CONFIG): only zero-configuration engines will serve.');
    return 0;
  }
  const config = loadConfigFile(settings.configPath, process.env);
  const models = Object.entries(config.models ?? {});
  console.log(`${settings.configPath}: valid, ${models.length} model(s).`);
  for (const [name, entry] of models) console.log(`  ${name} -> ${entry.backend}`);
  return 0;
}
