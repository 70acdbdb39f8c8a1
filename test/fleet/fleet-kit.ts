import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import S3rver from 's3rver';
import { stringify } from 'yaml';
import { formatApiKey, generateApiKey } from '../../src/core/auth/api-key.ts';
import { SecretBox } from '../../src/core/auth/secret-box.ts';
import type { PlatformConfig } from '../../src/core/config/config.schema.ts';
import { ApiKeyRepository } from '../../src/store/api-key-repository.ts';
import { openDatabase, type Database } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import type { DatabaseTarget } from '../helpers/test-databases.ts';
import { startRedis, type RedisServer } from '../tasks/task-test-kit.ts';

const cli = fileURLToPath(new URL('../../bin/model-platform.js', import.meta.url));

/** One `model-platform` process of the fleet. */
export interface FleetProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** `http://127.0.0.1:<port>` of a serve node; empty for a worker. */
  readonly baseUrl: string;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the exit code and signal once it has ended. */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL if it has not ended within `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * What the processes of a fleet share, and nothing else: one PostgreSQL database, one Redis (the
 * BullMQ queue), one S3 bucket (s3rver on loopback), the master key and the catalog. Each process
 * gets a data directory of its own, so nothing can pass between them through the local disk.
 */
export interface FleetServices {
  readonly database: Database;
  readonly redis: RedisServer;
  readonly s3Endpoint: string;
  /** The bootstrap key `<id>.<secret>` (admin scope). */
  readonly bootstrapKey: string;
  /** Starts `model-platform <command>` and resolves once it serves (serve) or runs its workers (worker). */
  start(name: string, command: 'serve' | 'worker', args?: readonly string[]): Promise<FleetProcess>;
  close(): Promise<void>;
}

export async function startFleetServices(options: {
  readonly target: DatabaseTarget;
  readonly config: PlatformConfig;
  readonly environment?: NodeJS.ProcessEnv;
}): Promise<FleetServices> {
  const root = mkdtempSync(join(tmpdir(), 'model-platform-fleet-'));
  const databaseUrl = await options.target.create();
  const redis = await startRedis();
  if (redis === undefined) throw new Error('redis-server is not installed');
  const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(root, 's3'), configureBuckets: [{ name: 'fleet' }] });
  const { port: s3Port } = await s3.run();
  const s3Endpoint = `http://127.0.0.1:${s3Port}`;
  const masterKey = randomBytes(32);
  const configPath = join(root, 'config.yaml');
  writeFileSync(configPath, stringify(options.config));

  // Migrations and the bootstrap key before the nodes start, as a deployment runs `migrate` once
  // before scaling out: nodes starting together would otherwise race to create the same key.
  const database = openDatabase({ databaseUrl, dataDir: root });
  await migrateToLatest(database);
  const key = generateApiKey();
  await new ApiKeyRepository(database, new SecretBox(masterKey)).create({ name: 'bootstrap', key, policy: { scope: 'admin' } });
  const bootstrapKey = formatApiKey(key);

  const shared: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    S3_BUCKET: 'fleet',
    S3_ENDPOINT: s3Endpoint,
    // s3rver checks signatures against its fixed credentials.
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    MODEL_PLATFORM_MASTER_KEY: masterKey.toString('hex'),
    MODEL_PLATFORM_BOOTSTRAP_KEY: bootstrapKey,
    MODEL_PLATFORM_CONFIG: configPath,
    ...options.environment,
  };
  /** Stops every process started, ready or not (one that never became ready must not outlive the test). */
  const stops: (() => Promise<void>)[] = [];

  return {
    database,
    redis,
    s3Endpoint,
    bootstrapKey,
    async start(name, command, args = []) {
      const dataDir = join(root, name);
      mkdirSync(dataDir);
      const environment = { ...shared, MODEL_PLATFORM_DATA_DIR: dataDir, ...(command === 'serve' ? { PORT: '0' } : {}) };
      return spawnNode(name, [command, ...args], environment, (stop) => stops.push(stop));
    },
    async close() {
      await Promise.all(stops.map((stop) => stop()));
      await database.close();
      await options.target.drop(databaseUrl);
      await s3.close();
      await redis.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Spawns the real binary; ready once serve prints its address or the worker its start line. */
function spawnNode(name: string, args: readonly string[], environment: NodeJS.ProcessEnv, track: (stop: () => Promise<void>) => void): Promise<FleetProcess> {
  const child = spawn(process.execPath, [cli, ...args], { env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let ended = false;
  void exited.then(() => (ended = true));
  const stop = async (graceMs = 5_000) => {
    if (ended) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  track(stop);
  return new Promise((resolve, reject) => {
    const onOutput = (chunk: Buffer) => {
      output += chunk.toString();
      const address = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      if (address === undefined && !/Task worker started/.test(output)) return;
      child.stdout?.off('data', onOutput);
      child.stdout?.on('data', (more: Buffer) => (output += more.toString()));
      resolve({ name, child, pid: child.pid ?? 0, baseUrl: address ?? '', output: () => output, exited, stop });
    };
    child.stdout?.on('data', onOutput);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then(({ code, signal }) => reject(new Error(`${name} ended (${code ?? signal}) before it was ready:\n${output}`)));
  });
}
