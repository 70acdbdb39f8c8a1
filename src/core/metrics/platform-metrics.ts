import type { Capability } from '../models/capability.ts';
import type { UsageRecord } from '../usage/usage-record.ts';
import type { EngineCallObserver } from './instrument-backend.ts';
import { RecentRequests } from './recent-requests.ts';
import type { RequestCountRecorder } from './request-counts.ts';
import { MetricRegistry, type Counter, type Gauge, type Histogram, type ScrapeCollector } from './metric-registry.ts';
import { registerProcessMetrics } from './process-metrics.ts';

const prefix = 'model_platform_';

/** Seconds, from a fast validation error to a long generation or a video task. */
const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** How a task run ended, as counted: `fail` is a failure that will not be retried, `timeout` the deadline passing. */
export type TaskOutcome = 'success' | 'fail' | 'timeout';

/** Open tasks by kind and queue state, read from the task table at scrape time. */
export type QueueDepthReader = () => Promise<readonly { readonly kind: string; readonly state: string; readonly count: number }[]>;

/** One deployment's health as the gauge shows it (ModelBackends.deploymentStates()). */
interface DeploymentHealthSample {
  readonly model: string;
  readonly deployment: string;
  readonly backend: string;
  readonly state: 'healthy' | 'cooling-down';
  readonly inFlight: number;
}

export type DeploymentStatesReader = () => readonly DeploymentHealthSample[];

export interface PlatformMetricsOptions {
  /**
   * Model names a label may carry (the catalog's and the platform's): any other name a client
   * sends is counted as `other`, so requests cannot grow the number of series without bound.
   */
  readonly knownModels: Iterable<string>;
  /** When set, GET /metrics wants `Authorization: Bearer <token>` (MODEL_PLATFORM_METRICS_TOKEN). */
  readonly scrapeToken?: string | undefined;
  /** Counts every model call by hour into the database, for the fleet's month of requests and errors. */
  readonly requestCounts?: RequestCountRecorder;
}

/**
 * The platform's Prometheus metrics (docs/observability.md), one set per process: HTTP requests,
 * engine calls, open streams, the task queue, tokens and the process itself. Every node serves
 * its own at GET /metrics; Prometheus adds them up across the fleet.
 */
export class PlatformMetrics implements EngineCallObserver {
  readonly registry = new MetricRegistry();
  readonly scrapeToken: string | undefined;
  readonly httpRequests: Counter<'route' | 'method' | 'model' | 'status'>;
  readonly httpDuration: Histogram<'route' | 'method' | 'model' | 'status'>;
  readonly engineDuration: Histogram<'model' | 'deployment' | 'capability'>;
  readonly engineErrors: Counter<'model' | 'deployment' | 'capability' | 'code'>;
  readonly deploymentHealthy: Gauge<'model' | 'deployment' | 'backend'>;
  readonly deploymentInFlight: Gauge<'model' | 'deployment' | 'backend'>;
  readonly activeStreams: Gauge<'route'>;
  readonly queueDepth: Gauge<'kind' | 'status'>;
  readonly tasksFinished: Counter<'kind' | 'outcome'>;
  readonly tokens: Counter<'model' | 'kind'>;
  /** The last day's model calls by minute, for the admin API's request summary (GET /admin/requests). */
  readonly recentRequests = new RecentRequests();
  readonly #requestCounts: RequestCountRecorder | undefined;
  readonly #knownModels: ReadonlySet<string>;
  readonly #stopProcessMetrics: () => void;

  constructor(options: PlatformMetricsOptions) {
    this.#knownModels = new Set(options.knownModels);
    this.scrapeToken = options.scrapeToken;
    this.#requestCounts = options.requestCounts;
    const registry = this.registry;
    this.httpRequests = registry.counter({
      name: `${prefix}http_requests_total`,
      help: 'HTTP requests answered, by route pattern, method, model and status (499: the client left first).',
      labelNames: ['route', 'method', 'model', 'status'],
    });
    this.httpDuration = registry.histogram({
      name: `${prefix}http_request_duration_seconds`,
      help: 'Time from receiving a request to the end of its response (a stream counts to its last event).',
      labelNames: ['route', 'method', 'model', 'status'],
      buckets: durationBuckets,
    });
    this.engineDuration = registry.histogram({
      name: `${prefix}engine_call_duration_seconds`,
      help: 'Duration of engine calls (whole streams included) by model, deployment (the engine that served it) and capability; calls the caller aborted are left out.',
      labelNames: ['model', 'deployment', 'capability'],
      buckets: durationBuckets,
    });
    this.engineErrors = registry.counter({
      name: `${prefix}engine_errors_total`,
      help: 'Engine calls that failed, by model, deployment, capability and error code.',
      labelNames: ['model', 'deployment', 'capability', 'code'],
    });
    this.deploymentHealthy = registry.gauge({
      name: `${prefix}deployment_healthy`,
      help: 'Whether each deployment of the models this process has used takes calls: 1 healthy, 0 cooling down after failures.',
      labelNames: ['model', 'deployment', 'backend'],
    });
    this.deploymentInFlight = registry.gauge({
      name: `${prefix}deployment_in_flight`,
      help: 'Engine calls under way on each deployment in this process.',
      labelNames: ['model', 'deployment', 'backend'],
    });
    this.activeStreams = registry.gauge({
      name: `${prefix}active_streams`,
      help: 'Server-sent event streams open now, by route pattern.',
      labelNames: ['route'],
    });
    this.queueDepth = registry.gauge({
      name: `${prefix}task_queue_depth`,
      help: 'Async tasks not finished, by kind and status (queued or running), read from the database at scrape time.',
      labelNames: ['kind', 'status'],
    });
    this.tasksFinished = registry.counter({
      name: `${prefix}tasks_finished_total`,
      help: 'Async task runs this process finished, by kind and outcome (success, fail, timeout).',
      labelNames: ['kind', 'outcome'],
    });
    this.tokens = registry.counter({
      name: `${prefix}tokens_total`,
      help: 'Tokens of completed calls, by model and kind (prompt, completion, cached).',
      labelNames: ['model', 'kind'],
    });
    this.#stopProcessMetrics = registerProcessMetrics(registry, prefix);
  }

  /** The label for a model name taken from a request: '' for none, `other` for a name the platform does not know. */
  modelLabel(model: unknown): string {
    if (typeof model !== 'string' || model === '') return '';
    return this.#knownModels.has(model) ? model : 'other';
  }

  observeRequest(labels: { route: string; method: string; model: string; status: string }, seconds: number): void {
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
    if (labels.model === '') return;
    this.recentRequests.record(labels.model, Number(labels.status), seconds);
    this.#requestCounts?.record(labels.model, Number(labels.status));
  }

  engineCall(model: string, capability: Capability, seconds: number, deployment = ''): void {
    this.engineDuration.observe({ model: this.modelLabel(model), deployment, capability }, seconds);
  }

  engineError(model: string, capability: Capability, code: string, deployment = ''): void {
    this.engineErrors.inc({ model: this.modelLabel(model), deployment, capability, code });
  }

  /** Reads each deployment's health and calls under way at each scrape; deployment names come from the config file, so the series are bounded. */
  collectDeploymentStates(read: DeploymentStatesReader): void {
    this.registry.collect(() => {
      const states = read();
      const labels = (state: DeploymentHealthSample) => ({ model: state.model, deployment: state.deployment, backend: state.backend });
      this.deploymentHealthy.replaceAll(states.map((state) => ({ labels: labels(state), value: state.state === 'healthy' ? 1 : 0 })));
      this.deploymentInFlight.replaceAll(states.map((state) => ({ labels: labels(state), value: state.inFlight })));
    });
  }

  /** Counts an open stream until the returned function is called (more calls do nothing). */
  streamOpened(route: string): () => void {
    this.activeStreams.add({ route }, 1);
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      this.activeStreams.add({ route }, -1);
    };
  }

  taskFinished(kind: string, outcome: TaskOutcome): void {
    this.tasksFinished.inc({ kind, outcome });
  }

  /** The tokens of one usage record (each record is one completed call). */
  recordUsage(record: UsageRecord): void {
    const model = this.modelLabel(record.model);
    // Cached tokens are part of the prompt; counted apart too, as the usage body reports them.
    if (record.promptTokens > 0) this.tokens.inc({ model, kind: 'prompt' }, record.promptTokens);
    if (record.completionTokens > 0) this.tokens.inc({ model, kind: 'completion' }, record.completionTokens);
    if (record.cachedTokens > 0) this.tokens.inc({ model, kind: 'cached' }, record.cachedTokens);
  }

  /** Reads the queue depth at each scrape (a grouped count over the state index). */
  collectQueueDepth(read: QueueDepthReader): void {
    const collector: ScrapeCollector = async () => {
      const rows = await read();
      this.queueDepth.replaceAll(rows.map((row) => ({ labels: { kind: row.kind, status: row.state }, value: row.count })));
    };
    this.registry.collect(collector);
  }

  /** The text a scrape receives. */
  render(onError?: (error: unknown) => void): Promise<string> {
    return this.registry.render(onError);
  }

  close(): void {
    this.#stopProcessMetrics();
  }
}
