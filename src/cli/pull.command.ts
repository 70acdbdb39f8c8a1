import { modelEntrySchema } from '../backends/model-entry-schema.ts';
import { ConfigError } from '../core/config/config-error.ts';
import { loadConfigFile } from '../core/config/load-config.ts';
import { modelFileUris } from '../core/config/model-file-uris.ts';
import { readModelFilesSettings, readSettings } from '../core/config/settings.ts';
import { zeroConfigModels } from '../core/models/zero-config-models.ts';
import { isHfUri } from '../platform/model-files/hf-uri.ts';
import { describeFailure, formatBytes, ModelFiles } from '../platform/model-files/model-files.ts';
import { parseHfUri } from '../platform/model-files/hf-uri.ts';
import type { CliFlags } from './cli-flags.ts';
import { downloadProgressLine } from './download-progress-line.ts';

/**
 * `pull <model | hf-uri>`: downloads the hf:// files a model of the catalog names (or the one URI)
 * into the models directory. A running server sees each file once it is in place.
 */
export async function runPull(target: string, flags: CliFlags): Promise<number> {
  const uris = isHfUri(target) ? [target] : catalogUris(target, flags);
  const files = new ModelFiles(readModelFilesSettings(process.env));
  let failed = 0;
  for (const uri of uris) {
    const progress = downloadProgressLine(uri);
    try {
      const path = await files.fetch(uri, (step) => progress.update(step));
      progress.end();
      console.log(`${uri}: ready at ${path}`);
    } catch (error) {
      progress.end();
      console.error(error instanceof Error && error.message.startsWith('hf://') ? error.message : describeFailure(parseHfUri(uri), error));
      failed += 1;
    }
  }
  return failed === 0 ? 0 : 1;
}

/** `models list`: the files under the models directory that the catalog names, and their sizes. */
export async function runModelsList(flags: CliFlags): Promise<number> {
  const files = new ModelFiles(readModelFilesSettings(process.env));
  const catalog = catalogOf(flags);
  const rows = Object.entries(catalog).flatMap(([model, entry]) => modelFileUris(entry).map((uri) => ({ model, status: files.statusOf(parseHfUri(uri)) })));
  console.log(`Models directory: ${files.settings.directory}`);
  if (rows.length === 0) console.log('The catalog names no hf:// files.');
  for (const { model, status } of rows) {
    const size = status.bytes === null ? 'not downloaded (model-platform pull ' + model + ')' : formatBytes(status.bytes);
    console.log(`${model}  ${status.uri}  ${size}`);
  }
  return 0;
}

function catalogOf(flags: CliFlags) {
  const { configPath } = readSettings(process.env, flags);
  const models = configPath === undefined ? {} : (loadConfigFile(configPath, process.env, modelEntrySchema).models ?? {});
  return { ...zeroConfigModels, ...models };
}

function catalogUris(model: string, flags: CliFlags): string[] {
  const catalog = catalogOf(flags);
  const entry = Object.hasOwn(catalog, model) ? catalog[model] : undefined;
  if (entry === undefined) throw new ConfigError(`'${model}' is not a model of the catalog (${Object.keys(catalog).join(', ')}) nor an hf:// URI`);
  const uris = modelFileUris(entry);
  if (uris.length === 0) throw new ConfigError(`model '${model}' names no hf:// file; nothing to pull`);
  return uris;
}
