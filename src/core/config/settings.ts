import { resolve } from 'node:path';
import { ConfigError } from './config-error.ts';

/** Start-up settings read from the environment and command-line flags (docs/deployment.md). */
export interface Settings {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** Path of the YAML model catalog, if any. */
  readonly configPath: string | undefined;
  /** `<id>.<secret>` created at start when absent. */
  readonly bootstrapKey: string | undefined;
  /** `postgres://…` switches storage to PostgreSQL; otherwise SQLite under dataDir. */
  readonly databaseUrl: string | undefined;
  /** `redis://…` moves the task queue to BullMQ on Redis; otherwise workers poll the database. */
  readonly redisUrl: string | undefined;
  /** Tasks one process runs at once (the handlers' own per-model limits apply within it). */
  readonly workerConcurrency: number;
  /** The origin clients reach this server at (behind a proxy); download URLs use it over the request's. */
  readonly publicUrl: string | undefined;
  /** Generated media in an S3-compatible bucket; otherwise on local disk under `<dataDir>/blobs`. */
  readonly s3: S3Settings | undefined;
  /** Blobs older than this many days are deleted by the sweeper; 0 keeps them forever. */
  readonly blobRetentionDays: number;
  /** How long a download URL stays valid, in seconds. */
  readonly blobUrlTtlSeconds: number;
  /** Usage ledger rows older than this many days are dropped (whole days; the daily rollups stay); 0 keeps them. */
  readonly usageRetentionDays: number;
  /** How long a worker's claim on a task holds without a heartbeat: a killed worker's task is taken over this long after. */
  readonly taskLeaseSeconds: number;
  /** Time a client has to send its request line and headers (slow-header clients are closed with 408). */
  readonly headersTimeoutSeconds: number;
  /** Time a client has to send its whole request, body included; 0: no limit. The answer is not counted. */
  readonly requestTimeoutSeconds: number;
  /** Longest pause while a request body arrives; 0: no limit. */
  readonly bodyIdleTimeoutSeconds: number;
  /** How long an idle kept-alive connection stays open. */
  readonly keepAliveTimeoutSeconds: number;
  /** Connections one client address may hold open at once; 0: no cap (the right choice behind a proxy). */
  readonly maxConnectionsPerAddress: number;
  /** /readyz fails while the data dir's disk has less free space than this many MB (MODEL_PLATFORM_MIN_FREE_DISK_MB); 0 turns the minimum off. */
  readonly minFreeDiskMegabytes: number;
  /** Where hf:// model files are kept and the hub they come from. */
  readonly modelFiles: ModelFilesSettings;
  /** Whether `serve` fetches missing hf:// files in the background (MODEL_PLATFORM_PULL=off: only `pull` does). */
  readonly pullOnStart: boolean;
}

export interface ModelFilesSettings {
  /** MODEL_PLATFORM_MODELS_DIR, else `<data dir>/models`. */
  readonly directory: string;
  /** HF_ENDPOINT (the variable the hub's own tools read), else https://huggingface.co: mirrors and tests set it. */
  readonly endpoint: string;
  /** HF_TOKEN, sent to the hub for gated and private repositories. */
  readonly token: string | undefined;
}

export interface S3Settings {
  readonly bucket: string;
  /** Undefined for AWS itself; set for MinIO, Ceph, R2 and the like (path-style addressing). */
  readonly endpoint: string | undefined;
  readonly region: string;
  /** Both or neither; neither means the SDK's default credential chain. */
  readonly accessKeyId: string | undefined;
  readonly secretAccessKey: string | undefined;
  /** Endpoint that presigned URLs name, when clients reach the store at another address than this server does. */
  readonly publicEndpoint: string | undefined;
}

export interface SettingsFlags {
  readonly config?: string | undefined;
  readonly port?: string | undefined;
  readonly host?: string | undefined;
}

/** S3 presigned URLs are valid for at most 7 days, so no download URL lives longer. */
const maxUrlTtlSeconds = 7 * 24 * 3600;

export function readSettings(environment: NodeJS.ProcessEnv, flags: SettingsFlags = {}): Settings {
  const portText = flags.port ?? environment['PORT'] ?? '8080';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError('PORT: is not a port number (0-65535)');
  }
  const bootstrapKey = nonEmpty(environment['MODEL_PLATFORM_BOOTSTRAP_KEY']);
  if (bootstrapKey !== undefined && bootstrapKey.split('.').length !== 2) {
    throw new ConfigError('MODEL_PLATFORM_BOOTSTRAP_KEY: must have the form <id>.<secret>');
  }
  const databaseUrl = nonEmpty(environment['DATABASE_URL']);
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL: only postgres:// URLs are supported (leave it unset for SQLite)');
  }
  const configPath = flags.config ?? nonEmpty(environment['MODEL_PLATFORM_CONFIG']);
  const redisUrl = nonEmpty(environment['REDIS_URL']);
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError('REDIS_URL: must be a redis:// or rediss:// URL (leave it unset for the embedded queue)');
  }
  const dataDir = readDataDir(environment);
  return {
    port,
    // Loopback unless asked: a first start must not put a fresh admin key's server on the network.
    host: flags.host ?? nonEmpty(environment['HOST']) ?? '127.0.0.1',
    dataDir,
    configPath: configPath === undefined ? undefined : resolve(configPath),
    bootstrapKey,
    databaseUrl,
    redisUrl,
    workerConcurrency: readInteger(environment, 'MODEL_PLATFORM_WORKER_CONCURRENCY', 4, 1, 1000),
    publicUrl: readPublicUrl(environment),
    s3: readS3Settings(environment),
    blobRetentionDays: readInteger(environment, 'MODEL_PLATFORM_BLOB_RETENTION_DAYS', 30, 0, 100_000),
    blobUrlTtlSeconds: readInteger(environment, 'MODEL_PLATFORM_BLOB_URL_TTL', 86_400, 1, maxUrlTtlSeconds),
    usageRetentionDays: readInteger(environment, 'MODEL_PLATFORM_USAGE_RETENTION_DAYS', 400, 0, 100_000),
    taskLeaseSeconds: readInteger(environment, 'MODEL_PLATFORM_TASK_LEASE_SECONDS', 30, 3, 3600),
    ...readServerTimeouts(environment),
    maxConnectionsPerAddress: readInteger(environment, 'MODEL_PLATFORM_MAX_CONNECTIONS_PER_ADDRESS', 0, 0, 1_000_000),
    minFreeDiskMegabytes: readInteger(environment, 'MODEL_PLATFORM_MIN_FREE_DISK_MB', 256, 0, 100_000_000),
    modelFiles: readModelFilesSettings(environment, dataDir),
    pullOnStart: readSwitch(environment, 'MODEL_PLATFORM_PULL', true),
  };
}

/** The models directory and the hub; read by `pull` and `models list` too, which need nothing else. */
export function readModelFilesSettings(environment: NodeJS.ProcessEnv, dataDir = readDataDir(environment)): ModelFilesSettings {
  const endpoint = nonEmpty(environment['HF_ENDPOINT']) ?? 'https://huggingface.co';
  if (!isHttpUrl(endpoint)) throw new ConfigError('HF_ENDPOINT: is not an http(s) URL');
  const directory = nonEmpty(environment['MODEL_PLATFORM_MODELS_DIR']);
  return {
    directory: directory === undefined ? resolve(dataDir, 'models') : resolve(directory),
    endpoint: endpoint.replace(/\/+$/, ''),
    token: nonEmpty(environment['HF_TOKEN']),
  };
}

function readDataDir(environment: NodeJS.ProcessEnv): string {
  return resolve(nonEmpty(environment['MODEL_PLATFORM_DATA_DIR']) ?? './data');
}

function readSwitch(environment: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const text = nonEmpty(environment[name])?.toLowerCase();
  if (text === undefined) return fallback;
  if (['on', 'true', '1', 'yes'].includes(text)) return true;
  if (['off', 'false', '0', 'no'].includes(text)) return false;
  throw new ConfigError(`${name}: must be on or off`);
}

function readInteger(environment: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const text = nonEmpty(environment[name]);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new ConfigError(`${name}: is not a whole number from ${min} to ${max}`);
  }
  return value;
}

function readServerTimeouts(environment: NodeJS.ProcessEnv) {
  const headersTimeoutSeconds = readInteger(environment, 'MODEL_PLATFORM_HEADERS_TIMEOUT_SECONDS', 30, 1, 3600);
  const requestTimeoutSeconds = readInteger(environment, 'MODEL_PLATFORM_REQUEST_TIMEOUT_SECONDS', 300, 0, 86_400);
  if (requestTimeoutSeconds > 0 && headersTimeoutSeconds > requestTimeoutSeconds) {
    throw new ConfigError('MODEL_PLATFORM_HEADERS_TIMEOUT_SECONDS: must not exceed MODEL_PLATFORM_REQUEST_TIMEOUT_SECONDS');
  }
  return {
    headersTimeoutSeconds,
    requestTimeoutSeconds,
    bodyIdleTimeoutSeconds: readInteger(environment, 'MODEL_PLATFORM_BODY_IDLE_TIMEOUT_SECONDS', 30, 0, 3600),
    keepAliveTimeoutSeconds: readInteger(environment, 'MODEL_PLATFORM_KEEP_ALIVE_TIMEOUT_SECONDS', 72, 1, 3600),
  };
}

function readPublicUrl(environment: NodeJS.ProcessEnv): string | undefined {
  const text = nonEmpty(environment['MODEL_PLATFORM_PUBLIC_URL']);
  if (text === undefined) return undefined;
  if (!isHttpUrl(text)) throw new ConfigError('MODEL_PLATFORM_PUBLIC_URL: is not an http(s) URL');
  // Kept with its path (a proxy may serve the platform under one), without the trailing slash.
  return text.replace(/\/+$/, '');
}

function readS3Settings(environment: NodeJS.ProcessEnv): S3Settings | undefined {
  const bucket = nonEmpty(environment['S3_BUCKET']);
  const endpoint = nonEmpty(environment['S3_ENDPOINT']);
  const publicEndpoint = nonEmpty(environment['S3_PUBLIC_ENDPOINT']);
  const accessKeyId = nonEmpty(environment['S3_ACCESS_KEY_ID']);
  const secretAccessKey = nonEmpty(environment['S3_SECRET_ACCESS_KEY']);
  if (bucket === undefined) {
    if (endpoint !== undefined || accessKeyId !== undefined || secretAccessKey !== undefined || publicEndpoint !== undefined) {
      throw new ConfigError('S3_BUCKET: required when other S3_* variables are set');
    }
    return undefined;
  }
  for (const [name, value] of [
    ['S3_ENDPOINT', endpoint],
    ['S3_PUBLIC_ENDPOINT', publicEndpoint],
  ] as const) {
    if (value !== undefined && !isHttpUrl(value)) throw new ConfigError(`${name}: is not an http(s) URL`);
  }
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY: set both or neither');
  }
  return {
    bucket,
    endpoint,
    region: nonEmpty(environment['S3_REGION']) ?? 'us-east-1',
    accessKeyId,
    secretAccessKey,
    publicEndpoint,
  };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
