import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { ConfigProblem } from './config-problems.ts';
import type { CatalogEntry, PlatformConfig } from './config.schema.ts';
import { deploymentsOf, isRoutedEntry } from './model-deployments.ts';

/** The settings that name a local file (or an hf:// file the platform fetches). */
const fileSettings = ['modelPath', 'tokenizerPath', 'chatTemplatePath'] as const;

/**
 * What the schema cannot see but start-up would trip over later: an agent naming a model that is
 * not in the catalog, and a local file setting naming a file that is not there. `catalog` is the
 * file's models with the zero-configuration ones.
 */
export function referenceProblems(config: PlatformConfig, catalog: Readonly<Record<string, CatalogEntry>>, configDir: string): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const names = Object.keys(catalog);
  for (const [agent, settings] of Object.entries(config.agents ?? {})) {
    const model = settings?.model;
    if (model !== undefined && !Object.hasOwn(catalog, model)) {
      problems.push({ key: `agents.${agent}.model`, text: `names '${model}', which is not a model of the catalog (${names.join(', ')})` });
    }
  }
  for (const [model, entry] of Object.entries(config.models ?? {})) {
    for (const [index, { entry: engine }] of deploymentsOf(model, entry).entries()) {
      const at = isRoutedEntry(entry) ? `models.${model}.deployments[${index}]` : `models.${model}`;
      for (const setting of fileSettings) {
        const path = engine[setting];
        if (typeof path !== 'string' || path.startsWith('hf://')) continue;
        const local = isAbsolute(path) ? path : resolve(configDir, path);
        if (!existsSync(local))
          problems.push({
            key: `${at}.${setting}`,
            text: `names ${local}, which does not exist (an hf://owner/repo/file URI is fetched from the hub instead)`,
          });
      }
    }
  }
  return problems;
}
