import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, afterEach, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { TaskHandler, TaskRecord, TaskSubmission } from '../../src/core/tasks/task.ts';
import { readSettings } from '../../src/core/config/settings.ts';
import { openPlatform } from '../../src/platform/open-platform.ts';
import type { Database } from '../../src/store/database.ts';
import type { TaskWorkers } from '../../src/tasks/task-workers.ts';
import { databaseTargets, reportSkippedPostgres } from '../helpers/test-databases.ts';
import {
  createTestDatabase,
  fastTuning,
  gatedHandler,
  isRedisInstalled,
  startRedis,
  testTaskService,
  waitFor,
  waitForStatus,
  type RedisServer,
  type TestDatabase,
} from './task-test-kit.ts';

reportSkippedPostgres();

const crashingWorker = fileURLToPath(new URL('./fixtures/crashing-worker.ts', import.meta.url));

const submission = (overrides: Partial<TaskSubmission> = {}): TaskSubmission => ({
  kind: 'durable',
  ownerKeyId: 'owner-key',
  model: 'test-model',
  requestId: 'request-1',
  request: {},
  timeoutMs: 60_000,
  ...overrides,
});

const completing: TaskHandler = { kind: 'durable', run: async (task) => ({ finishedOnAttempt: task.attempts }) };

const redisInstalled = isRedisInstalled();
let redis: RedisServer | undefined;
before(async () => {
  if (redisInstalled) redis = await startRedis();
});
after(() => redis?.stop());

for (const [targetIndex, target] of databaseTargets.entries()) {
  describe(`task durability on ${target.name}`, () => {
    let testDatabase: TestDatabase;
    let database: Database;
    const services: TaskWorkers[] = [];
    const service = (handlers: TaskHandler[], redisUrl?: string): TaskWorkers => {
      const created = testTaskService({ database, handlers, redisUrl });
      services.push(created);
      return created;
    };

    before(async () => {
      testDatabase = await createTestDatabase(target);
      database = await testDatabase.open();
    });
    // Each test's workers stop with it, so none claims the next test's tasks.
    afterEach(async () => {
      await Promise.all(services.splice(0).map((each) => each.close()));
    });
    after(async () => {
      await database.close();
      await testDatabase.drop();
    });

    it('a platform closed mid-task and opened again on the same data finishes the task', async () => {
      const environment: NodeJS.ProcessEnv = { MODEL_PLATFORM_DATA_DIR: testDatabase.dataDir };
      if (testDatabase.databaseUrl !== undefined) environment['DATABASE_URL'] = testDatabase.databaseUrl;
      const blocking = gatedHandler('durable');
      const first = await openPlatform(readSettings(environment), environment, { taskHandlers: [blocking], taskTuning: fastTuning });
      first.startWorkers();
      const submitted = await first.tasks.submit(submission());
      await waitFor(
        async () => blocking.started.length,
        (count) => count === 1,
      );
      await first.close();

      const second = await openPlatform(readSettings(environment), environment, { taskHandlers: [completing], taskTuning: fastTuning });
      try {
        second.startWorkers();
        const done = await waitForStatus(second.tasks, submitted, 'SUCCESS');
        assert.deepEqual(done.result, { finishedOnAttempt: 1 });
      } finally {
        await second.close();
      }
    });

    for (const mode of ['embedded', 'bullmq'] as const) {
      const skip = mode === 'bullmq' && !redisInstalled ? 'redis-server is not installed' : false;
      it(`a worker killed mid-task (SIGKILL, ${mode} queue) loses nothing: the task is claimed again when its lease expires`, { skip }, async () => {
        const redisUrl = mode === 'bullmq' ? `${redis?.url}/${targetIndex}` : undefined;
        const submitter = service([], redisUrl);
        const submitted = await submitter.submit(submission());
        const child = spawn(process.execPath, ['--import', 'tsx', crashingWorker], {
          env: {
            ...process.env,
            TEST_TASK_DATA_DIR: testDatabase.dataDir,
            ...(testDatabase.databaseUrl === undefined ? {} : { TEST_TASK_DATABASE_URL: testDatabase.databaseUrl }),
            ...(redisUrl === undefined ? {} : { TEST_TASK_REDIS_URL: redisUrl }),
          },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        const exited = new Promise((resolve) => child.once('exit', resolve));
        let output = '';
        await new Promise<void>((resolve, reject) => {
          setTimeout(() => reject(new Error(`the worker did not start the task in 15 s:\n${output}`)), 15_000).unref();
          child.stdout.on('data', (chunk: Buffer) => {
            output += chunk.toString();
            if (output.includes(`started ${submitted.id}`)) resolve();
          });
          child.once('exit', (code) => reject(new Error(`the worker exited (${code}) before it started the task:\n${output}`)));
        });
        child.kill('SIGKILL');
        await exited;
        const orphaned = await submitter.get(submitted.id, 'owner-key');
        assert.equal(orphaned?.status, 'PROCESSING');
        assert.equal(orphaned.attempts, 1);

        const rescuer = service([completing], redisUrl);
        rescuer.start();
        const done = await waitForStatus(rescuer, submitted, 'SUCCESS', 15_000);
        assert.deepEqual(done.result, { finishedOnAttempt: 2 });
      });
    }

    it('a task whose deadline passed while no worker ran fails as timed out, without running', async () => {
      const submitter = service([]);
      const submitted = await submitter.submit(submission({ timeoutMs: 200 }));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const runs: TaskRecord[] = [];
      const worker = service([{ kind: 'durable', run: async (task) => runs.push(task) }]);
      worker.start();
      const failed = await waitForStatus(worker, submitted, 'FAIL');
      assert.equal(failed.error?.code, '1230');
      assert.match(failed.error.message, /timed out/);
      assert.equal(runs.length, 0);
    });

    it('a task whose worker died on every attempt fails with that reason instead of running forever', async () => {
      const submitter = service([]);
      const submitted = await submitter.submit(submission());
      // What three crashed runs leave behind: a running row, its last lease long expired.
      await database.db
        .updateTable('tasks')
        .set({ state: 'running', attempts: 3, lease_owner: 'dead-worker', lease_expires_at: Date.now() - 1_000 })
        .where('id', '=', submitted.id)
        .execute();
      const runs: TaskRecord[] = [];
      const worker = service([{ kind: 'durable', run: async (task) => runs.push(task) }]);
      worker.start();
      const failed = await waitForStatus(worker, submitted, 'FAIL');
      assert.equal(failed.error?.code, '1230');
      assert.match(failed.error.message, /worker stopped/);
      assert.equal(runs.length, 0);
    });
  });
}
