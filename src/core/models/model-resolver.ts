import { ApiError } from '../errors/api-error.ts';
import { quoteClientValue } from '../errors/quote-client-value.ts';
import type { CatalogEntry, ModelEntry } from '../config/config.schema.ts';
import { modelSettingsOf } from '../config/model-deployments.ts';
import { capabilities, type Capability } from './capability.ts';
import { platformModelsOf } from './platform-models.ts';

/** Maps a request's model name onto the catalog entry that serves it. */
export class ModelResolver {
  /** A Map: the name looked up is the caller's `model` field, and must never reach a prototype. */
  readonly #catalog: ReadonlyMap<string, CatalogEntry>;

  constructor(catalog: Readonly<Record<string, CatalogEntry>>) {
    this.#catalog = new Map(Object.entries(catalog));
  }

  /** The names this server serves now: the config file's models and those that need no configuration. */
  servedModels(): string[] {
    return [...this.#catalog.keys()];
  }

  /**
   * The settings of `model` (for a model with several deployments, the entry that stands for them
   * all: model-deployments.ts `modelSettingsOf`). A name neither the platform nor the catalog knows
   * is 1211; a platform name with no engine configured is 1221, with the config line to add.
   */
  resolve(model: string, capability: Capability): ModelEntry {
    return modelSettingsOf(this.catalogEntry(model, capability));
  }

  /** The catalog entry of `model` as configured: one engine or several deployments; 1211 / 1221 as `resolve`. */
  catalogEntry(model: string, capability: Capability): CatalogEntry {
    const entry = this.#catalog.get(model);
    if (entry !== undefined) return entry;
    const known = platformModelsOf(capability);
    if (!known.includes(model)) {
      const hint = known.length > 0 ? ` Models for ${capabilities[capability].label}: ${known.join(', ')}.` : '';
      throw new ApiError('1211', `Unknown Model, please check the model code: '${quoteClientValue(model)}'.${hint}`);
    }
    throw new ApiError(
      '1221',
      `Model '${model}' has no engine configured for ${capabilities[capability].label}. ` +
        `Add it to the config file (MODEL_PLATFORM_CONFIG), for example: models: { ${model}: ${capabilities[capability].example} }.`,
    );
  }
}

/** 1221 for a configured model whose backend kind this build cannot run for the capability yet. */
export function engineNotAvailable(model: string, entry: ModelEntry, capability: Capability): ApiError {
  return new ApiError(
    '1221',
    `Model '${model}' is configured with backend '${entry.backend}', which this build cannot run for ${capabilities[capability].label} yet.`,
  );
}

/** 1221 for an endpoint whose engine is not part of this build yet. */
export function featureNotAvailable(feature: string): ApiError {
  return new ApiError('1221', `${feature} is not available in this build of the server yet.`);
}
