import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { ApiError } from '../../src/core/errors/api-error.ts';
import { RetryableTaskError } from '../../src/core/tasks/retryable-task-error.ts';
import { EngineFailure } from '../../src/core/errors/engine-failure.ts';
import type { TaskHandler, TaskRecord, TaskSubmission } from '../../src/core/tasks/task.ts';
import type { Database } from '../../src/store/database.ts';
import { queueName } from '../../src/tasks/bullmq-task-queue.ts';
import type { TaskWorkers } from '../../src/tasks/task-workers.ts';
import { databaseTargets, reportSkippedPostgres } from '../helpers/test-databases.ts';
import {
  createTestDatabase,
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

const submission = (overrides: Partial<TaskSubmission> = {}): TaskSubmission => ({
  kind: 'image',
  ownerKeyId: 'owner-key',
  model: 'test-model',
  requestId: 'request-1',
  request: { prompt: 'a cat' },
  timeoutMs: 20_000,
  ...overrides,
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const redisInstalled = isRedisInstalled();
let redis: RedisServer | undefined;
before(async () => {
  if (redisInstalled) redis = await startRedis();
});
after(() => redis?.stop());

const modes = ['embedded', 'bullmq'] as const;

for (const [targetIndex, target] of databaseTargets.entries()) {
  for (const mode of modes) {
    describe(`task engine: ${mode} queue on ${target.name}`, () => {
      let testDatabase: TestDatabase;
      let database: Database;
      const services: TaskWorkers[] = [];
      /** A running service with these handlers, closed after the test group. */
      const service = (handlers: TaskHandler[]): TaskWorkers => {
        const created = testTaskService({
          database,
          handlers,
          // Each database target gets its own Redis database, so jobs of one never reach the other.
          redisUrl: mode === 'bullmq' ? `${redis?.url}/${targetIndex}` : undefined,
        });
        services.push(created);
        created.start();
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

      it('runs a submitted task to SUCCESS with its result; only the owning key can read it', { skip: skipped(mode) }, async () => {
        const tasks = service([{ kind: 'image', run: async (task) => ({ images: [{ key: `images/${task.id}/0.png` }] }) }]);
        const submitted = await tasks.submit(submission());
        assert.equal(submitted.status, 'PROCESSING');
        assert.match(submitted.id, /^\d{14}[0-9a-f]{16}$/);
        const done = await waitForStatus(tasks, submitted, 'SUCCESS');
        assert.deepEqual(done.result, { images: [{ key: `images/${submitted.id}/0.png` }] });
        assert.equal(done.attempts, 1);
        assert.equal(done.error, undefined);
        assert.deepEqual(
          { model: done.model, requestId: done.requestId, request: done.request, kind: done.kind },
          { model: 'test-model', requestId: 'request-1', request: { prompt: 'a cat' }, kind: 'image' },
        );
        assert.equal(await tasks.get(submitted.id, 'another-key'), undefined);
        assert.equal(await tasks.get('20250101000000ffffffffffffffff', 'owner-key'), undefined);
      });

      it('retries a retryable error with backoff, then succeeds', { skip: skipped(mode) }, async () => {
        const runs: number[] = [];
        const tasks = service([
          {
            kind: 'retry-then-ok',
            async run(task) {
              runs.push(Date.now());
              if (task.attempts === 1) throw new RetryableTaskError('engine restarting');
              if (task.attempts === 2) throw new ApiError('1234', 'network blip');
              return { ok: task.attempts };
            },
          },
        ]);
        const submitted = await tasks.submit(submission({ kind: 'retry-then-ok' }));
        const done = await waitForStatus(tasks, submitted, 'SUCCESS');
        assert.deepEqual(done.result, { ok: 3 });
        assert.equal(done.attempts, 3);
        assert.equal(runs.length, 3);
        assert.ok((runs[1] ?? 0) - (runs[0] ?? 0) >= 15, `a backoff between runs: ${JSON.stringify(runs)}`);
      });

      it('fails at once with the reason of a non-retryable error', { skip: skipped(mode) }, async () => {
        let runs = 0;
        const tasks = service([
          {
            kind: 'refused',
            async run() {
              runs += 1;
              throw new ApiError('1301', 'The prompt was refused by the content filter.');
            },
          },
        ]);
        const submitted = await tasks.submit(submission({ kind: 'refused' }));
        const done = await waitForStatus(tasks, submitted, 'FAIL');
        assert.deepEqual(done.error, { code: '1301', message: 'The prompt was refused by the content filter.' });
        assert.equal(done.attempts, 1);
        await sleep(150);
        assert.equal(runs, 1, 'never retried');
      });

      it('never runs again a task whose engine had answered (its media generated, then the download failed)', { skip: skipped(mode) }, async () => {
        let runs = 0;
        const tasks = service([
          {
            kind: 'generated',
            async run() {
              runs += 1;
              throw new EngineFailure('unreachable', 'cogview-4', 'the generated image could not be downloaded', { answerStarted: true });
            },
          },
        ]);
        const submitted = await tasks.submit(submission({ kind: 'generated' }));
        const done = await waitForStatus(tasks, submitted, 'FAIL');
        assert.equal(done.error?.code, '1234');
        assert.equal(done.attempts, 1);
        await sleep(150);
        assert.equal(runs, 1, 'a second run would generate the image again');
      });

      it('gives up after the last attempt of a retryable error, with its reason; a bug fails as 500', { skip: skipped(mode) }, async () => {
        const tasks = service([
          { kind: 'always-busy', run: async () => Promise.reject(new RetryableTaskError('the engine queue is full', { code: '1305' })) },
          { kind: 'buggy', run: async () => Promise.reject(new TypeError("Cannot read properties of undefined (reading 'x')")) },
        ]);
        const busy = await tasks.submit(submission({ kind: 'always-busy' }));
        const buggy = await tasks.submit(submission({ kind: 'buggy' }));
        const gaveUp = await waitForStatus(tasks, busy, 'FAIL');
        assert.deepEqual(gaveUp.error, { code: '1305', message: 'the engine queue is full' });
        assert.equal(gaveUp.attempts, 3);
        const failed = await waitForStatus(tasks, buggy, 'FAIL');
        assert.equal(failed.error?.code, '500');
        assert.ok(!failed.error.message.includes('Cannot read'), 'internals stay in the log');
        assert.equal(failed.attempts, 1);
      });

      it('fails a task past its deadline as timed out, whether or not the handler heeds its signal', { skip: skipped(mode) }, async () => {
        const aborted: unknown[] = [];
        const tasks = service([
          {
            kind: 'heeds',
            run: (_task, signal) =>
              new Promise((_resolve, reject) =>
                signal.addEventListener('abort', () => {
                  aborted.push(signal.reason);
                  reject(new Error('aborted'));
                }),
              ),
          },
          // Never settles and never looks at its signal.
          { kind: 'ignores', run: () => new Promise(() => undefined) },
        ]);
        const started = Date.now();
        const heeds = await tasks.submit(submission({ kind: 'heeds', timeoutMs: 400 }));
        const ignores = await tasks.submit(submission({ kind: 'ignores', timeoutMs: 400 }));
        for (const task of [heeds, ignores]) {
          const done = await waitForStatus(tasks, task, 'FAIL');
          assert.equal(done.error?.code, '1230');
          assert.match(done.error.message, /timed out/);
          assert.equal(done.attempts, 1);
        }
        assert.ok(Date.now() - started >= 380, 'not before the deadline');
        assert.equal(aborted.length, 1, 'the heeding handler saw its signal abort');
      });

      it('two services on one database never run the same task, and run them all', { skip: skipped(mode) }, async () => {
        const runsById = new Map<string, number>();
        const running = new Set<string>();
        const ranOn = new Map<string, number>();
        const handler = (instance: string): TaskHandler => ({
          kind: 'contended',
          async run(task) {
            assert.ok(!running.has(task.id), `task ${task.id} is already running elsewhere`);
            running.add(task.id);
            runsById.set(task.id, (runsById.get(task.id) ?? 0) + 1);
            ranOn.set(instance, (ranOn.get(instance) ?? 0) + 1);
            await sleep(5 + Math.random() * 20);
            running.delete(task.id);
            return { instance };
          },
        });
        const first = service([handler('first')]);
        service([handler('second')]);
        const submitted: TaskRecord[] = [];
        // Redis may deliver a job twice (a stalled job is re-sent while its worker still runs it):
        // a second job right behind every task's, which the database claim must turn into a no-op.
        const duplicates = mode === 'bullmq' ? await duplicateJobs(`${redis?.url}/${targetIndex}`, 'contended') : undefined;
        try {
          for (let index = 0; index < 40; index += 1) {
            const task = await first.submit(submission({ kind: 'contended' }));
            submitted.push(task);
            await duplicates?.add(task);
          }
        } finally {
          await duplicates?.close();
        }
        for (const task of submitted) await waitForStatus(first, task, 'SUCCESS');
        assert.equal(runsById.size, 40);
        assert.deepEqual([...new Set(runsById.values())], [1], 'each task ran exactly once');
        console.log(`contended tasks per service (${mode}, ${target.name}): ${JSON.stringify(Object.fromEntries(ranOn))}`);
      });

      it("keeps a handler's concurrency limit per key", { skip: skipped(mode) }, async () => {
        const running = new Map<string, number>();
        const peak = new Map<string, number>();
        const tasks = service([
          {
            kind: 'limited',
            concurrency: (task) => ({ key: task.model, limit: 1 }),
            async run(task) {
              const now = (running.get(task.model) ?? 0) + 1;
              running.set(task.model, now);
              peak.set(task.model, Math.max(peak.get(task.model) ?? 0, now));
              await sleep(30);
              running.set(task.model, (running.get(task.model) ?? 1) - 1);
              return {};
            },
          },
        ]);
        const submitted: TaskRecord[] = [];
        for (const model of ['a', 'a', 'a', 'b', 'b', 'b']) submitted.push(await tasks.submit(submission({ kind: 'limited', model })));
        for (const task of submitted) await waitForStatus(tasks, task, 'SUCCESS');
        assert.deepEqual(Object.fromEntries(peak), { a: 1, b: 1 });
      });

      it('hands running tasks back on close; another service finishes them', { skip: skipped(mode) }, async () => {
        const blocking = gatedHandler('handed-back');
        const first = service([blocking]);
        const submitted = await first.submit(submission({ kind: 'handed-back' }));
        await waitFor(
          async () => blocking.started.length,
          (count) => count === 1,
        );
        await first.close();
        const released = await first.get(submitted.id, 'owner-key');
        assert.equal(released?.status, 'PROCESSING');
        assert.equal(released.attempts, 0, 'the interrupted run does not count');

        const finishing = gatedHandler('handed-back');
        finishing.open();
        const second = service([finishing]);
        const done = await waitForStatus(second, submitted, 'SUCCESS');
        assert.deepEqual(done.result, { ran: submitted.id });
        assert.equal(done.attempts, 1);
      });
    });
  }
}

async function duplicateJobs(redisUrl: string, kind: string) {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue(queueName(kind), { connection });
  return {
    add: async (task: TaskRecord) => {
      await queue.add('run', { id: task.id }, { jobId: `${task.id}-duplicate`, removeOnComplete: true });
    },
    async close() {
      await queue.close();
      connection.disconnect();
    },
  };
}

function skipped(mode: (typeof modes)[number]): string | false {
  return mode === 'bullmq' && !redisInstalled ? 'redis-server is not installed' : false;
}
