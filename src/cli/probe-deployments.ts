import type { BackendFactory, BackendResources } from '../core/backends/backend.ts';
import type { CatalogEntry, ModelEntry } from '../core/config/config.schema.ts';
import { deploymentsOf } from '../core/config/model-deployments.ts';
import { alignedTable } from './aligned-table.ts';

/** Longest a probe may take, the engine's own limit included: an in-process probe or a stuck factory must not hold the check. */
const probeDeadlineMs = 10_000;

/** Deployments probed at once: enough for a fleet's config, few enough not to flood one engine host. */
const probesAtOnce = 8;

/** What one deployment answered when probed. */
export interface DeploymentProbe {
  readonly model: string;
  readonly deployment: string;
  readonly backend: string;
  readonly reachable: boolean;
  readonly latencyMs: number;
  /** The model names the engine reports (empty when it lists none). */
  readonly reportedModels: readonly string[];
  /** The engine's own line on its state, or why it is not reachable. */
  readonly detail: string;
  /** The model name the platform sends it (upstreamModel, else the public name), when the engine lists names and not this one. */
  readonly missingUpstreamModel: string | undefined;
}

/**
 * The config check sees no storage: an engine that would use the platform's search index or
 * reader while being probed is a bug of that probe, and says so.
 */
const noPlatformServices = new Proxy({} as BackendResources, {
  get(_target, name) {
    throw new Error(`config check opens no storage; the probe asked for the platform's ${String(name)}`);
  },
});

/**
 * Builds each deployment's engine as serve would and asks its probe, several at once, each within
 * `probeDeadlineMs`; the engines are closed afterwards. A deployment whose engine cannot be built
 * (a workflow file missing) or has no probe is reported as such.
 */
export async function probeDeployments(
  models: readonly (readonly [string, CatalogEntry])[],
  factories: ReadonlyMap<string, BackendFactory>,
  configDir: string,
): Promise<DeploymentProbe[]> {
  const jobs = models.flatMap(([model, catalogEntry]) => deploymentsOf(model, catalogEntry).map((deployment) => ({ model, deployment })));
  const results: DeploymentProbe[] = new Array<DeploymentProbe>(jobs.length);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < jobs.length; index = next++) {
      const job = jobs[index];
      if (job === undefined) continue;
      results[index] = await probeOne(job.model, job.deployment.name, job.deployment.entry, factories, configDir);
    }
  };
  await Promise.all(Array.from({ length: Math.min(probesAtOnce, jobs.length) }, worker));
  return results;
}

async function probeOne(
  model: string,
  deployment: string,
  entry: ModelEntry,
  factories: ReadonlyMap<string, BackendFactory>,
  configDir: string,
): Promise<DeploymentProbe> {
  const base = { model, deployment, backend: entry.backend };
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const secret = stringSetting(entry, 'apiKey');
  const unreachable = (error: unknown): DeploymentProbe => ({
    ...base,
    reachable: false,
    latencyMs: elapsed(),
    reportedModels: [],
    detail: hide(error instanceof Error ? error.message : String(error), secret),
    missingUpstreamModel: undefined,
  });
  const factory = factories.get(entry.backend);
  if (factory === undefined) return unreachable(new Error(`no engine kind '${entry.backend}'`));
  let backend;
  try {
    backend = factory({ modelName: model, entry, configDir, resources: noPlatformServices });
  } catch (error) {
    return unreachable(error);
  }
  try {
    if (backend.probe === undefined) return unreachable(new Error('this engine kind has no probe'));
    const result = await backend.probe(AbortSignal.timeout(probeDeadlineMs));
    const reportedModels = result.models ?? [];
    const upstreamModel = stringSetting(entry, 'upstreamModel') ?? model;
    return {
      ...base,
      reachable: true,
      latencyMs: elapsed(),
      reportedModels,
      detail: result.detail ?? '',
      missingUpstreamModel: reportedModels.length > 0 && !reportedModels.includes(upstreamModel) ? upstreamModel : undefined,
    };
  } catch (error) {
    return unreachable(error);
  } finally {
    await backend.close?.().catch(() => undefined);
  }
}

function stringSetting(entry: ModelEntry, name: string): string | undefined {
  const value = entry[name];
  return typeof value === 'string' ? value : undefined;
}

/** An engine never echoes a credential, but a printed line is never the place for one: make sure. */
function hide(text: string, secret: string | undefined): string {
  return secret === undefined || secret === '' ? text : text.split(secret).join('***');
}

/** The probes as a text table, then one warning line per engine that does not list its upstream model. */
export function formatProbeTable(probes: readonly DeploymentProbe[]): string {
  const header = ['MODEL', 'DEPLOYMENT', 'BACKEND', 'REACHABLE', 'LATENCY', 'REPORTS'];
  const rows = probes.map((probe) => [
    probe.model,
    probe.deployment,
    probe.backend,
    probe.reachable ? 'yes' : 'no',
    `${probe.latencyMs} ms`,
    shorten(probe.reachable ? [probe.reportedModels.join(', '), probe.detail].filter((part) => part !== '').join('; ') : probe.detail, 100),
  ]);
  const warnings = probes
    .filter((probe) => probe.missingUpstreamModel !== undefined)
    .map(
      (probe) =>
        `warning: ${probe.model} / ${probe.deployment} does not report '${probe.missingUpstreamModel ?? ''}', the model name the platform sends it ` +
        '(set upstreamModel to one it reports)',
    );
  return [alignedTable([header, ...rows]), ...warnings].join('\n');
}

function shorten(text: string, length: number): string {
  const oneLine = text.replace(/\s+/g, ' ');
  return oneLine.length <= length ? oneLine : `${oneLine.slice(0, length - 1)}…`;
}
