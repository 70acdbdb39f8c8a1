import { backendFactories } from '../backends/index.ts';
import { Authenticator } from '../core/auth/authenticator.ts';
import { SecretBox } from '../core/auth/secret-box.ts';
import type { PlatformConfig } from '../core/config/config.schema.ts';
import { loadConfigFile } from '../core/config/load-config.ts';
import type { Settings } from '../core/config/settings.ts';
import { EngineRegistry } from '../core/engines/engine-registry.ts';
import { ModelResolver } from '../core/models/model-resolver.ts';
import { zeroConfigModels } from '../core/models/zero-config-models.ts';
import { UsageRecorder } from '../core/usage/usage-recorder.ts';
import { ApiKeyRepository } from '../store/api-key-repository.ts';
import { openDatabase, type Database } from '../store/database.ts';
import { loadMasterKey } from '../store/master-key.ts';
import { migrateToLatest } from '../store/migrate.ts';
import { UsageRepository } from '../store/usage-repository.ts';
import { createSearchIndex } from '../store/search-index/create-search-index.ts';
import { createWebReader, type ClosableWebReader } from '../tools/reader/create-web-reader.ts';
import type { SearchIndex } from '../core/web/search-index.ts';
import { HfTokenCounter } from '../tools/hf-tokenizer/hf-token-counter.ts';
import type { BlobUrlSigner } from '../blobs/blob-url-signer.ts';
import { startBlobSweeper } from '../blobs/blob-sweeper.ts';
import { createBlobStore } from '../blobs/create-blob-store.ts';
import type { ManagedBlobStore } from '../blobs/managed-blob-store.ts';
import { createMediaTaskHandlers } from '../core/media/media-task-handlers.ts';
import type { TaskHandler } from '../core/tasks/task.ts';
import { createTaskService } from '../tasks/create-task-service.ts';
import type { TaskEngine, TaskTuning } from '../tasks/task-engine.ts';

/** The composed, storage-backed parts the server, the worker and the CLI share. */
export interface Platform {
  readonly settings: Settings;
  readonly config: PlatformConfig;
  readonly database: Database;
  readonly keys: ApiKeyRepository;
  readonly authenticator: Authenticator;
  readonly models: ModelResolver;
  /** Engines of the catalog's models, built on first use. */
  readonly engines: EngineRegistry;
  /** The web reader (zero configuration), shared by the reader endpoint and search ingestion. */
  readonly reader: ClosableWebReader;
  readonly searchIndex: SearchIndex;
  /** Batches usage records into `ledger`, off the request path. */
  readonly usage: UsageRecorder;
  readonly ledger: UsageRepository;
  /** Generated media: local disk, or S3 when configured. */
  readonly blobs: ManagedBlobStore;
  readonly blobUrls: BlobUrlSigner;
  /** Async tasks; their workers run only after `startWorkers()` (serve and worker commands). */
  readonly tasks: TaskEngine;
  /** Starts this process's task workers and the blob retention sweeper. */
  startWorkers(): void;
  /** Revokes a key in storage and in this process's auth cache, so it is refused at once. */
  revokeKey(id: string): Promise<boolean>;
  close(): Promise<void>;
}

export interface PlatformOptions {
  /** Task handlers in place of the media ones (tests; embedding the platform). */
  readonly taskHandlers?: readonly TaskHandler[];
  readonly taskTuning?: Partial<TaskTuning>;
}

/** Loads the config, opens storage and applies pending migrations. */
export async function openPlatform(settings: Settings, environment: NodeJS.ProcessEnv, options: PlatformOptions = {}): Promise<Platform> {
  const config = settings.configPath === undefined ? {} : loadConfigFile(settings.configPath, environment);
  const masterKey = loadMasterKey(settings.dataDir, environment);
  const box = new SecretBox(masterKey);
  const database = openDatabase(settings);
  try {
    await migrateToLatest(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  const keys = new ApiKeyRepository(database, box);
  const authenticator = new Authenticator(keys, box);
  const models = new ModelResolver({ ...zeroConfigModels, ...config.models });
  const searchIndex = createSearchIndex(database);
  const reader = createWebReader({ database, config, dataDir: settings.dataDir });
  const engines = new EngineRegistry(
    models,
    backendFactories,
    settings.configPath,
    (tokenizerPath, chatTemplatePath) => HfTokenCounter.load(tokenizerPath, chatTemplatePath),
    { searchIndex, reader },
  );
  const ledger = new UsageRepository(database);
  const usage = new UsageRecorder((records) => ledger.insertMany(records), {
    onError: (error, dropped) => console.error(`usage records not written yet (${dropped} dropped):`, error),
  });
  const { store: blobs, signer: blobUrls } = createBlobStore(settings, masterKey);
  const tasks = createTaskService({
    database,
    redisUrl: settings.redisUrl,
    concurrency: settings.workerConcurrency,
    handlers:
      options.taskHandlers ??
      createMediaTaskHandlers({ engines, blobs, engineConcurrency: (model, capability) => catalogConcurrency(models, model, capability) }),
    ...(options.taskTuning === undefined ? {} : { tuning: options.taskTuning }),
  });
  let stopSweeper: (() => Promise<void>) | undefined;
  return {
    settings,
    config,
    database,
    keys,
    authenticator,
    models,
    engines,
    reader,
    searchIndex,
    usage,
    ledger,
    blobs,
    blobUrls,
    tasks,
    startWorkers() {
      tasks.start();
      stopSweeper ??= startBlobSweeper(blobs, { retentionDays: settings.blobRetentionDays });
    },
    async revokeKey(id) {
      const revoked = await keys.revoke(id);
      authenticator.forget(id);
      return revoked;
    },
    async close() {
      // Workers first: their tasks go back to the queue while engines and storage still answer.
      await tasks.close();
      await stopSweeper?.();
      await blobs.close();
      await usage.close();
      await engines.close();
      await reader.close();
      await database.close();
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
