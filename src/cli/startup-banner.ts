import type { CatalogEntry, PlatformConfig } from '../core/config/config.schema.ts';
import { deploymentsOf } from '../core/config/model-deployments.ts';
import { capabilities, type Capability } from '../core/models/capability.ts';
import { platformModelsOf } from '../core/models/platform-models.ts';
import { zeroConfigModels } from '../core/models/zero-config-models.ts';

/** A model of the config file and the engine serving it: its kind and, for HTTP engines, the host (never a key or a path). */
interface ConfiguredModel {
  readonly model: string;
  readonly backend: string;
  readonly engineHost?: string;
}

/** What serves with no config file at all. */
interface ZeroConfigurationFeature {
  readonly feature: string;
  /** The model names it answers to, when it takes one. */
  readonly models?: readonly string[];
  readonly backend: string;
}

export interface StartupBanner {
  readonly message: string;
  readonly fields: {
    readonly address: string;
    readonly docs: string;
    /** The operator console (GET / leads there too). */
    readonly console: string;
    readonly models: readonly ConfiguredModel[];
    readonly noConfiguration: readonly ZeroConfigurationFeature[];
  };
}

/**
 * The line `serve` logs once it listens: where it is, where its API docs and console are, which models the
 * config file maps onto which engines, and what works with no configuration (the in-process
 * engines the config file does not override). `address` is the one it listens on;
 * `publicUrl` (MODEL_PLATFORM_PUBLIC_URL), when set, is where clients reach it.
 */
export function startupBanner(options: { readonly address: string; readonly publicUrl: string | undefined; readonly config: PlatformConfig }): StartupBanner {
  const base = (options.publicUrl ?? reachable(options.address)).replace(/\/+$/, '');
  const docs = `${base}/docs`;
  const operatorConsole = `${base}/console`;
  const configured = options.config.models ?? {};
  const models = Object.entries(configured)
    .map(([model, entry]) => configuredModel(model, entry))
    .sort((left, right) => left.model.localeCompare(right.model));
  const noConfiguration = zeroConfigurationFeatures(new Set(Object.keys(configured)));
  const engines = models.map(({ model, backend, engineHost }) => `${model} -> ${backend}${engineHost === undefined ? '' : ` at ${engineHost}`}`);
  const message = [
    `model-platform serving on ${options.address}${exposeHint(options.address)}`,
    `API docs at ${docs}`,
    `console at ${operatorConsole}`,
    models.length === 0 ? 'no models configured' : `configured: ${engines.join(', ')}`,
    `with no configuration: ${noConfiguration.map(({ feature, models: names }) => (names?.length === 1 ? `${feature} (${names[0]})` : feature)).join(', ')}`,
  ].join('; ');
  return { message, fields: { address: options.address, docs, console: operatorConsole, models, noConfiguration } };
}

/** A model with several deployments names each kind once and every engine host. */
function configuredModel(model: string, catalogEntry: CatalogEntry): ConfiguredModel {
  const engines = deploymentsOf(model, catalogEntry).map(({ entry }) => entry);
  const backend = [...new Set(engines.map((entry) => entry.backend))].join('/');
  const hosts = engines
    .map(({ baseUrl }) => (typeof baseUrl === 'string' && URL.canParse(baseUrl) ? new URL(baseUrl).host : undefined))
    .filter((host) => host !== undefined);
  return hosts.length === 0 ? { model, backend } : { model, backend, engineHost: hosts.join(',') };
}

/** The zero-configuration models by feature, less those the config file maps elsewhere; and the reader, which takes no model. */
function zeroConfigurationFeatures(overridden: ReadonlySet<string>): ZeroConfigurationFeature[] {
  const features: ZeroConfigurationFeature[] = [];
  for (const capability of Object.keys(capabilities) as Capability[]) {
    const byBackend = new Map<string, string[]>();
    for (const model of platformModelsOf(capability)) {
      const entry = Object.hasOwn(zeroConfigModels, model) && !overridden.has(model) ? zeroConfigModels[model] : undefined;
      if (entry !== undefined) byBackend.set(entry.backend, [...(byBackend.get(entry.backend) ?? []), model]);
    }
    for (const [backend, models] of byBackend) features.push({ feature: capabilities[capability].label, models, backend });
  }
  features.push({ feature: capabilities.read.label, backend: 'built-in reader' });
  return features;
}

/** On a loopback address only this machine reaches the server: say how to open it to others. */
function exposeHint(address: string): string {
  return /:\/\/(127\.\d+\.\d+\.\d+|\[::1\]|localhost)(:|$)/.test(address) ? ' (this machine only; HOST=0.0.0.0 or --host 0.0.0.0 serves the network)' : '';
}

/** A wildcard listening address (0.0.0.0, ::) as one a browser on this machine can open. */
function reachable(address: string): string {
  return address.replace('://0.0.0.0', '://127.0.0.1').replace('://[::]', '://[::1]');
}
