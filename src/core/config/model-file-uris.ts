import type { CatalogEntry } from './config.schema.ts';
import { deploymentsOf } from './model-deployments.ts';

/** The hf:// URIs an entry's settings name (modelPath, tokenizerPath…), each deployment's included, once each. */
export function modelFileUris(entry: CatalogEntry): string[] {
  const uris = new Set<string>();
  for (const { entry: engine } of deploymentsOf('', entry)) {
    for (const value of Object.values(engine)) if (typeof value === 'string' && value.startsWith('hf://')) uris.add(value);
  }
  return [...uris];
}
