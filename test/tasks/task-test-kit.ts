import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { TaskHandler, TaskRecord } from '../../src/core/tasks/task.ts';
import { openDatabase, type Database } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import type { DatabaseTarget } from '../helpers/test-databases.ts';
import { createTaskService } from '../../src/tasks/create-task-service.ts';
import type { TaskWorkers, TaskWorkersOptions, TaskTuning } from '../../src/tasks/task-workers.ts';

/** Queue timings short enough for tests, long enough for a slow CI machine not to lose leases. */
export const fastTuning: Partial<TaskTuning> = {
  leaseMs: 1_500,
  heartbeatMs: 300,
  pollMs: 25,
  sweepMs: 200,
  maxAttempts: 3,
  retryBaseMs: 20,
  retryMaxMs: 100,
};

export interface TestDatabase {
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  /** A new connection to the same database (what a second process or a restart would open). */
  open(): Promise<Database>;
  drop(): Promise<void>;
}

/** A fresh, migrated database on the target (SQLite in a temp data dir, or a new PostgreSQL database). */
export async function createTestDatabase(target: DatabaseTarget): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'model-platform-tasks-'));
  const databaseUrl = await target.create();
  const open = async () => {
    const database = openDatabase({ databaseUrl, dataDir });
    await migrateToLatest(database);
    return database;
  };
  return {
    dataDir,
    databaseUrl,
    open,
    async drop() {
      await target.drop(databaseUrl);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A task service with test timings; closing it does not close the database. */
export function testTaskService(
  options: Omit<TaskWorkersOptions, 'tuning' | 'log'> & { tuning?: Partial<TaskTuning>; log?: TaskWorkersOptions['log'] },
): TaskWorkers {
  return createTaskService({ log: () => undefined, concurrency: 4, ...options, tuning: { ...fastTuning, ...options.tuning } });
}

/** Polls `read` until `done` holds for its value; fails with the last value after `timeoutMs`. */
export async function waitFor<Value>(read: () => Promise<Value>, done: (value: Value) => boolean, timeoutMs = 10_000): Promise<Value> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) throw new Error(`timed out waiting; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function waitForStatus(service: TaskWorkers, task: TaskRecord, status: TaskRecord['status'], timeoutMs?: number): Promise<TaskRecord> {
  return waitFor(
    async () => (await service.get(task.id, task.ownerKeyId)) as TaskRecord,
    (current) => current.status === status,
    timeoutMs,
  );
}

/** A handler whose runs the test controls: each run waits until released (or its signal aborts). */
export function gatedHandler(kind: string): TaskHandler & { readonly started: TaskRecord[]; open(): void } {
  const started: TaskRecord[] = [];
  let opened = false;
  const waiting: (() => void)[] = [];
  return {
    kind,
    started,
    open() {
      opened = true;
      for (const release of waiting.splice(0)) release();
    },
    async run(task, signal) {
      started.push(task);
      if (!opened) {
        await new Promise<void>((resolve, reject) => {
          waiting.push(resolve);
          signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
        });
      }
      return { ran: task.id };
    },
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface RedisServer {
  readonly url: string;
  stop(): Promise<void>;
}

/** Whether redis-server can be started; says so visibly when not (CI installs it). */
export function isRedisInstalled(): boolean {
  if (spawnSync('redis-server', ['--version']).error === undefined) return true;
  console.warn('redis-server is not installed: the BullMQ task tests are SKIPPED (apt-get install redis-server)');
  return false;
}

/**
 * A redis-server of the test's own on a free loopback port, nothing persisted (ENVIRONMENT.md),
 * or undefined when redis-server is not installed.
 */
export async function startRedis(): Promise<RedisServer | undefined> {
  if (!isRedisInstalled()) return undefined;
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'model-platform-redis-'));
  const child: ChildProcess = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `redis://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      client.on('error', () => undefined);
      try {
        await client.connect();
        return (await client.ping()) === 'PONG';
      } catch {
        return false;
      } finally {
        client.disconnect();
      }
    },
    (ready) => ready,
    10_000,
  );
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
