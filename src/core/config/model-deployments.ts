import type { CatalogEntry, DeploymentEntry, ModelEntry, RoutedModelEntry, RoutingStrategy } from './config.schema.ts';

/** One engine of a model as the router sees it: the engine entry it is built from and how it is weighed. */
export interface ModelDeployment {
  readonly name: string;
  /** The engine entry alone (without name, weight and priority): what its kind's factory takes. */
  readonly entry: ModelEntry;
  readonly weight: number;
  readonly priority: number;
}

/** How calls of one model are spread and retried. */
export interface ModelRouting {
  readonly strategy: RoutingStrategy;
  readonly fallbacks: readonly string[];
  readonly maxAttempts: number;
}

/** Engine calls one request makes at most, fallback models included, unless the entry says otherwise. */
const defaultMaxAttempts = 3;

export function isRoutedEntry(entry: CatalogEntry): entry is RoutedModelEntry {
  return Object.hasOwn(entry, 'deployments');
}

/** The deployments of a catalog entry, in file order; today's single-engine form is one deployment. */
export function deploymentsOf(modelName: string, entry: CatalogEntry): ModelDeployment[] {
  if (!isRoutedEntry(entry)) return [{ name: defaultDeploymentName(modelName, 0), entry, weight: 1, priority: 0 }];
  return entry.deployments.map((deployment, index) => {
    const { name, weight, priority, ...engine } = deployment;
    return { name: name ?? defaultDeploymentName(modelName, index), entry: engine as ModelEntry, weight: weight ?? 1, priority: priority ?? 0 };
  });
}

export function routingOf(entry: CatalogEntry): ModelRouting {
  if (!isRoutedEntry(entry)) return { strategy: 'least-in-flight', fallbacks: [], maxAttempts: defaultMaxAttempts };
  return { strategy: entry.routing ?? 'least-in-flight', fallbacks: entry.fallbacks ?? [], maxAttempts: entry.maxAttempts ?? defaultMaxAttempts };
}

/**
 * One engine entry that stands for the whole model where the platform reads a model's settings
 * (task deadlines, the tokenizer files, task concurrency): the first deployment's entry, with the
 * longest `timeoutMs` of any deployment (a task must outlive its slowest engine) and the sum of
 * the deployments' `maxConcurrency` (unbounded when one of them is).
 */
export function modelSettingsOf(entry: CatalogEntry): ModelEntry {
  if (!isRoutedEntry(entry)) return entry;
  const engines = deploymentsOf('', entry).map((deployment) => deployment.entry);
  const [first] = engines as [ModelEntry, ...ModelEntry[]];
  const timeouts = engines.map((engine) => engine.timeoutMs).filter((timeout) => timeout !== undefined);
  const limits = engines.map((engine) => engine.maxConcurrency);
  const settings: Record<string, unknown> = { ...first };
  delete settings['timeoutMs'];
  delete settings['maxConcurrency'];
  if (timeouts.length > 0) settings['timeoutMs'] = Math.max(...timeouts);
  if (limits.every((limit) => limit !== undefined)) settings['maxConcurrency'] = limits.reduce((sum, limit) => sum + limit, 0);
  return settings as unknown as ModelEntry;
}

/**
 * `<model>#<position>` (from 1, config order): the name callers see in the served-by header and
 * /metrics labels, so it carries no engine address (an operator who wants another names it).
 */
export function defaultDeploymentName(modelName: string, index: number): string {
  return `${modelName}#${index + 1}`;
}

/**
 * `<host>:<port>` of the entry's `baseUrl` (the scheme's port when none is written), for the
 * operator's eyes only (admin listings, `models status`, logs); undefined for an engine in process.
 */
export function engineAddressOf(entry: ModelEntry | DeploymentEntry): string | undefined {
  const baseUrl = entry['baseUrl'];
  if (typeof baseUrl !== 'string' || !URL.canParse(baseUrl)) return undefined;
  const url = new URL(baseUrl);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.hostname}:${port}`;
}
