import { backendFactories, modelEntrySchema } from '../backends/index.ts';
import { Authenticator } from '../core/auth/authenticator.ts';
import { SecretBox } from '../core/auth/secret-box.ts';
import type { PlatformConfig } from '../core/config/config.schema.ts';
import { loadConfigFile } from '../core/config/load-config.ts';
import type { Settings } from '../core/config/settings.ts';
import { ModelBackends } from '../core/backends/model-backends.ts';
import { ModelResolver } from '../core/models/model-resolver.ts';
import { zeroConfigModels } from '../core/models/zero-config-models.ts';
import type { UsageRecorder } from '../core/usage/usage-recorder.ts';
import { startUsageRetention } from '../core/usage/usage-retention.ts';
import { taskUsage } from '../core/usage/task-usage.ts';
import type { KeyAdmin } from './key-admin.ts';
import type { Admission } from '../core/limits/admission.ts';
import { withCreditReservations } from '../core/limits/credit-reserving-tasks.ts';
import { MeteredUsageRecorder } from '../core/limits/metered-usage-recorder.ts';
import { openKeyLimits } from './open-key-limits.ts';
import { SharedDeploymentSlots } from '../limits/shared-deployment-slots.ts';
import type { CreditRepository } from '../store/credit-repository.ts';
import { ApiKeyRepository } from '../store/api-key-repository.ts';
import { openDatabase, type Database } from '../store/database.ts';
import { loadMasterKey } from '../store/master-key.ts';
import { migrateToLatest } from '../store/migrate.ts';
import { UsageRepository } from '../store/usage-repository.ts';
import { createSearchIndex } from '../store/search-index/create-search-index.ts';
import { createKnowledgeIndex } from '../store/knowledge/create-knowledge-index.ts';
import { createWebReader, type ClosableWebReader } from '../tools/reader/create-web-reader.ts';
import type { SearchIndex } from '../core/web/search-index.ts';
import { HfTokenCounter } from '../tools/hf-tokenizer/hf-token-counter.ts';
import type { BlobUrlSigner } from '../blobs/blob-url-signer.ts';
import { startBlobSweeper } from '../blobs/blob-sweeper.ts';
import { createBlobStore } from '../blobs/create-blob-store.ts';
import { nodeLocalDisk, type LocalDisk } from '../blobs/local-disk.ts';
import type { ManagedBlobStore } from '../blobs/managed-blob-store.ts';
import { BlobFileStore } from '../core/files/blob-file-store.ts';
import { fileBlobPrefix } from '../core/files/file-limits.ts';
import { startFileRetentionSweeper } from '../core/files/file-retention-sweeper.ts';
import type { FileStore } from '../core/files/file-store.ts';
import { FileRepository } from '../store/file-repository.ts';
import { createMediaTaskHandlers } from '../core/media/media-task-handlers.ts';
import { extractFirstFrame } from '../tools/media/first-frame.ts';
import { ffprobeMediaReader } from '../tools/media/visual-media-probe.ts';
import { createChatTaskHandler } from '../core/chat/chat-task-handler.ts';
import { createChatMediaFetcher } from '../tools/fetch/chat-media-fetcher.ts';
import type { GuardedFetcher } from '../tools/fetch/guarded-fetcher.ts';
import type { KnowledgeIndex } from '../core/knowledge/knowledge-index.ts';
import type { VisualMediaReader } from '../core/media/visual-media-reader.ts';
import type { TaskListing } from '../core/tasks/task-listing.ts';
import { TaskListingRepository } from '../store/task-listing-repository.ts';
import type { Agent } from '../agents/agent.ts';
import { createAgents, type AgentId } from '../agents/index.ts';
import { AgentConversationRepository } from '../store/agent-conversation-repository.ts';
import type { TaskHandler } from '../core/tasks/task.ts';
import { createTaskService } from '../tasks/create-task-service.ts';
import { taskQueueDepth } from '../tasks/task-queue-depth.ts';
import { PlatformMetrics } from '../core/metrics/platform-metrics.ts';
import { RequestCountRecorder } from '../core/metrics/request-counts.ts';
import { RequestCountRepository } from '../store/request-count-repository.ts';
import { platformModels } from '../core/models/platform-models.ts';
import type { Readiness } from '../core/health/readiness.ts';
import { createReadiness } from './readiness-checks.ts';
import type { TaskWorkers, TaskTuning } from '../tasks/task-workers.ts';
import { failureLog } from '../core/logging/logger.ts';
import { PriceTable } from '../core/billing/price-table.ts';
import { createLogger, type PlatformLogger } from './create-logger.ts';
import { ModelFiles } from './model-files/model-files.ts';
import { modelFileUris } from '../core/config/model-file-uris.ts';
import { ConfigError } from '../core/config/config-error.ts';
import type { CatalogEntry } from '../core/config/config.schema.ts';

/** The composed, storage-backed parts the server, the worker and the CLI share. */
export interface Platform {
  readonly settings: Settings;
  readonly config: PlatformConfig;
  readonly database: Database;
  readonly keys: ApiKeyRepository;
  readonly authenticator: Authenticator;
  readonly models: ModelResolver;
  /** Engines of the catalog's models, built on first use. */
  readonly backends: ModelBackends;
  /** The catalog's hf:// files: where each is on disk, downloads and their progress. */
  readonly modelFiles: ModelFiles;
  /** The catalog's hf:// URIs, each once (what `serve` fetches in the background). */
  readonly modelFileUris: readonly string[];
  /** The web reader (zero configuration), shared by the reader endpoint and search ingestion. */
  readonly reader: ClosableWebReader;
  readonly searchIndex: SearchIndex;
  /** Batches usage records into `ledger`, off the request path. */
  readonly usage: UsageRecorder;
  readonly ledger: UsageRepository;
  /** Generated media: local disk, or S3 when configured. */
  readonly blobs: ManagedBlobStore;
  readonly blobUrls: BlobUrlSigner;
  /** Uploaded files: records in the database, bytes in `blobs` under `files/`; kept 180 days. */
  readonly files: FileStore;
  /** The knowledge bases of the retrieval tool, in the database. */
  readonly knowledge: KnowledgeIndex;
  /** Async tasks listed newest first, for the admin API. */
  readonly taskListing: TaskListing;
  /** Media given by URL in chat and tokenizer calls, fetched through the SSRF guard; closed with the platform. */
  readonly mediaFetcher: GuardedFetcher;
  /** Reads pictures' and videos' sizes for the tokenizer (ffprobe for what headers alone do not say). */
  readonly mediaReader: VisualMediaReader;
  /** The agents of /v1/agents, by agent_id, built on the services above. */
  readonly agents: Readonly<Record<AgentId, Agent>>;
  /** Async tasks; their workers run only after `startWorkers()` (serve and worker commands). Submissions hold key credit. */
  readonly tasks: TaskWorkers;
  /** Key limits on every route; counters in Redis when REDIS_URL is set, else in this process. */
  readonly admission: Admission;
  /** Prepaid key credit and the holds of async work. */
  readonly credits: CreditRepository;
  /** Key and policy operations shared by the admin API and the CLI. */
  readonly keyAdmin: KeyAdmin;
  /** This process's Prometheus metrics (GET /metrics on every node; `worker --port` too). */
  readonly metrics: PlatformMetrics;
  /** Every node's model calls by hour, in the database: the fleet's month of requests and errors. */
  readonly requestCounts: RequestCountRecorder;
  /** The dependencies /readyz checks: database, Redis (when set), object store, free space of the data disk. */
  readonly readiness: Readiness;
  /** This process's logger: the app logs its requests through it, background work its failures. */
  readonly logger: PlatformLogger;
  /** Starts this process's task workers and the retention sweepers (generated media, uploaded files, usage ledger days). */
  startWorkers(): void;
  /** Revokes a key in storage and in this process's auth cache, so it is refused at once. */
  revokeKey(id: string): Promise<boolean>;
  close(): Promise<void>;
}

export interface PlatformOptions {
  /** Task handlers in place of the media ones (tests; embedding the platform). */
  readonly taskHandlers?: readonly TaskHandler[];
  readonly taskTuning?: Partial<TaskTuning>;
  /** The local disk blobs are written to and /readyz measures (tests: one that fills up). */
  readonly disk?: LocalDisk;
  /** The process's logger; by default JSON lines on stdout at LOG_LEVEL of `environment`. */
  readonly logger?: PlatformLogger;
}

/** Loads the config, opens storage and applies pending migrations. */
export async function openPlatform(settings: Settings, environment: NodeJS.ProcessEnv, options: PlatformOptions = {}): Promise<Platform> {
  const config = settings.configPath === undefined ? {} : loadConfigFile(settings.configPath, environment, modelEntrySchema);
  const catalog: Record<string, CatalogEntry> = { ...zeroConfigModels, ...config.models };
  const modelFiles = new ModelFiles(settings.modelFiles);
  const fileUris = registerModelFiles(modelFiles, catalog);
  const masterKey = loadMasterKey(settings.dataDir, environment);
  const box = new SecretBox(masterKey);
  const logger = options.logger ?? createLogger(environment);
  const logFailure = failureLog(logger);
  const database = openDatabase({ ...settings, log: failureLog(logger, 'warn') });
  try {
    await migrateToLatest(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  const keys = new ApiKeyRepository(database, box);
  const authenticator = new Authenticator(keys, box);
  const models = new ModelResolver(catalog);
  const searchIndex = createSearchIndex(database);
  const metricsToken = environment['MODEL_PLATFORM_METRICS_TOKEN']?.trim();
  const requestCounts = new RequestCountRecorder(new RequestCountRepository(database), {
    onError: (error) => logger.error({ err: error }, 'hourly request counts not written yet'),
  });
  const metrics = new PlatformMetrics({
    knownModels: [...Object.keys(catalog), ...Object.values(platformModels).flat()],
    scrapeToken: metricsToken === '' ? undefined : metricsToken,
    requestCounts,
  });
  metrics.collectQueueDepth(taskQueueDepth(database));
  const reader = createWebReader({ database, config, dataDir: settings.dataDir, log: failureLog(logger, 'warn') });
  const limits = openKeyLimits({
    database,
    keys,
    redisUrl: settings.redisUrl,
    prices: new PriceTable(config.billing),
    changed: (id) => authenticator.forget(id),
    log: logFailure,
  });
  const backends = new ModelBackends({
    models,
    factories: backendFactories,
    configPath: settings.configPath,
    loadTokenizerFiles: (tokenizerPath, chatTemplatePath) => HfTokenCounter.load(tokenizerPath, chatTemplatePath),
    resources: { searchIndex, reader, modelFiles, announce: (fields, message) => logger.info(fields, message) },
    observer: metrics,
    logger,
    // A fleet holds each deployment's maxConcurrency across its nodes, in the key limits' Redis.
    deploymentSlots: settings.redisUrl === undefined ? undefined : new SharedDeploymentSlots(limits.limiter, { log: logFailure }),
  });
  metrics.collectDeploymentStates(() => backends.deploymentStates());
  const ledger = new UsageRepository(database);
  const usage = new MeteredUsageRecorder((records) => ledger.insertMany(records), limits.admission, {
    onError: (error, dropped) => logger.error({ err: error, dropped }, 'usage records not written yet'),
    observe: (record) => metrics.recordUsage(record),
  });
  const disk = options.disk ?? nodeLocalDisk;
  const { store: blobs, signer: blobUrls } = createBlobStore(settings, masterKey, disk);
  const files = new BlobFileStore(new FileRepository(database), blobs);
  // Media given by URL in chat and tokenizer calls, sync and async (the workers), all through the one SSRF guard.
  const mediaFetcher = createChatMediaFetcher(config.fetch?.allow ?? []);
  const knowledge = createKnowledgeIndex(database);
  const tasks = withCreditReservations(
    createTaskService({
      database,
      redisUrl: settings.redisUrl,
      concurrency: settings.workerConcurrency,
      log: logFailure,
      onTaskFinished: (kind, outcome, task, result) => {
        metrics.taskFinished(kind, outcome);
        // Generated images and videos count in the ledger when their task succeeds, once (the fenced
        // write's worker), priced then; the task's credit reservation settles to that cost (0 on failure).
        const record = outcome === 'success' ? taskUsage(task, result) : undefined;
        void limits.admission.taskEnded(task, record).then((priced) => {
          if (priced !== undefined) usage.record(priced);
        });
      },
      handlers: options.taskHandlers ?? [
        ...createMediaTaskHandlers({
          backends,
          blobs,
          extractFirstFrame,
          engineConcurrency: (model, capability) => catalogConcurrency(models, model, capability),
        }),
        createChatTaskHandler({ backends, mediaFetcher, knowledge }),
      ],
      // The lease from the settings (how soon a killed worker's task is taken over), heartbeats three to a lease.
      tuning: { leaseMs: settings.taskLeaseSeconds * 1000, heartbeatMs: (settings.taskLeaseSeconds * 1000) / 3, ...options.taskTuning },
    }),
    limits.admission,
  );
  const agents = createAgents({ config, backends, tasks, blobs, files, conversations: new AgentConversationRepository(database) });
  let stopSweeper: (() => Promise<void>) | undefined;
  let stopFileSweeper: (() => Promise<void>) | undefined;
  let stopUsageRetention: (() => Promise<void>) | undefined;
  return {
    settings,
    config,
    database,
    keys,
    authenticator,
    models,
    backends,
    modelFiles,
    modelFileUris: fileUris,
    reader,
    searchIndex,
    usage,
    ledger,
    blobs,
    blobUrls,
    files,
    knowledge,
    taskListing: new TaskListingRepository(database),
    mediaFetcher,
    mediaReader: ffprobeMediaReader,
    agents,
    tasks,
    admission: limits.admission,
    credits: limits.credits,
    keyAdmin: limits.keyAdmin,
    metrics,
    requestCounts,
    logger,
    readiness: createReadiness({
      database,
      redisUrl: settings.redisUrl,
      blobs,
      dataDir: settings.dataDir,
      minFreeDiskBytes: settings.minFreeDiskMegabytes * 1024 * 1024,
      disk,
      deploymentStates: () => backends.deploymentStates(),
    }),
    startWorkers() {
      tasks.start();
      limits.startReconciler();
      // Uploaded files keep their own 180-day retention: the media sweeper leaves `files/` alone.
      stopSweeper ??= startBlobSweeper(blobs, { retentionDays: settings.blobRetentionDays, keepPrefixes: [fileBlobPrefix], log: logFailure });
      stopFileSweeper ??= startFileRetentionSweeper(files, { log: logFailure });
      // The usage ledger's days: the coming ones prepared (PostgreSQL partitions), those past retention dropped.
      stopUsageRetention ??= startUsageRetention(ledger, { retentionDays: settings.usageRetentionDays, log: logFailure });
    },
    async revokeKey(id) {
      const revoked = await keys.revoke(id);
      authenticator.forget(id);
      return revoked;
    },
    async close() {
      // Workers first: their tasks go back to the queue while engines and storage still answer.
      await tasks.close();
      await Promise.all(Object.values(agents).map((agent) => agent.close?.()));
      await stopSweeper?.();
      await stopFileSweeper?.();
      await stopUsageRetention?.();
      await blobs.close();
      await usage.close();
      await ledger.close();
      await requestCounts.close();
      // Engines before the limiter: their shared deployment slots are released while Redis is still connected.
      await backends.close();
      await limits.close();
      await mediaFetcher.close();
      await reader.close();
      await database.close();
      metrics.close();
    },
  };
}

/** The catalog's maxConcurrency of a model; undefined for a model the catalog cannot resolve (its task fails anyway). */
function catalogConcurrency(models: ModelResolver, model: string, capability: 'image' | 'video'): number | undefined {
  try {
    return models.resolve(model, capability).maxConcurrency;
  } catch {
    return undefined;
  }
}

/** Every hf:// URI of the catalog, registered so its state is listed from the start; a malformed one is a configuration error. */
function registerModelFiles(modelFiles: ModelFiles, catalog: Readonly<Record<string, CatalogEntry>>): string[] {
  const uris = new Set<string>();
  const problems: string[] = [];
  for (const [model, entry] of Object.entries(catalog)) {
    for (const uri of modelFileUris(entry)) {
      try {
        modelFiles.register(uri);
        uris.add(uri);
      } catch (error) {
        problems.push(`models.${model}: ${(error as Error).message}`);
      }
    }
  }
  if (problems.length > 0) throw new ConfigError(problems.join('\n'), problems);
  return [...uris];
}
