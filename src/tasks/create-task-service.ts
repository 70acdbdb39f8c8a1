import { randomBytes } from 'node:crypto';
import type { TaskHandler, TaskRecord } from '../core/tasks/task.ts';
import { defaultTaskTimeoutMs } from '../core/tasks/task-timeouts.ts';
import { TaskRepository, type QueuedTask } from '../store/task-repository.ts';
import { BullmqTaskQueue } from './bullmq-task-queue.ts';
import { EmbeddedTaskQueue } from './embedded-task-queue.ts';
import { defaultTaskTuning, type TaskWorkers, type TaskWorkersOptions } from './task-workers.ts';
import { generateTaskId } from './task-id.ts';
import type { TaskQueue } from './task-queue.ts';
import { TaskRunner } from './task-runner.ts';
import { TaskTraces } from './task-traces.ts';

/**
 * The task engine (docs/architecture.md, "Async tasks"): durable rows in the database, dispatched by the embedded
 * poller or, with `redisUrl`, by BullMQ. Handlers are fixed at creation; `start()` runs workers
 * for their kinds in this process.
 */
export function createTaskService(options: TaskWorkersOptions): TaskWorkers {
  const tuning = { ...defaultTaskTuning, ...options.tuning };
  const log = options.log;
  const handlers = new Map<string, TaskHandler>();
  for (const handler of options.handlers) {
    if (handlers.has(handler.kind)) throw new Error(`two task handlers for kind '${handler.kind}'`);
    handlers.set(handler.kind, handler);
  }
  const repository = new TaskRepository(options.database);
  // Unique per process and start, so a restarted process never mistakes an old lease for its own.
  const workerId = `${process.pid}-${randomBytes(6).toString('hex')}`;
  const traces = new TaskTraces();
  const runner = new TaskRunner(repository, handlers, tuning, workerId, log, options.onTaskFinished, traces);
  const queueOptions = { repository, runner, handlers, concurrency: options.concurrency ?? 4, tuning, workerId, log, traces };
  const queue: TaskQueue =
    options.redisUrl === undefined ? new EmbeddedTaskQueue(queueOptions) : new BullmqTaskQueue({ ...queueOptions, redisUrl: options.redisUrl });
  let closed = false;

  return {
    mode: options.redisUrl === undefined ? 'embedded' : 'bullmq',
    async submit(submission) {
      const now = Date.now();
      const task = await traces.submit(submission.kind, () =>
        repository.insert({
          id: generateTaskId(now),
          kind: submission.kind,
          ownerKeyId: submission.ownerKeyId,
          model: submission.model,
          requestId: submission.requestId,
          request: submission.request,
          createdAt: now,
          deadlineAt: now + (submission.timeoutMs ?? defaultTaskTimeoutMs(submission.kind)),
        }),
      );
      await queue.dispatch(task);
      return toRecord(task);
    },
    async get(id, ownerKeyId) {
      const task = await repository.findOwned(id, ownerKeyId);
      return task === undefined ? undefined : toRecord(task);
    },
    start() {
      if (!closed) queue.start();
    },
    async close() {
      if (closed) return;
      closed = true;
      await queue.close();
    },
  };
}

/** The public record, without the queue's bookkeeping. */
function toRecord(task: QueuedTask): TaskRecord {
  return {
    id: task.id,
    kind: task.kind,
    ownerKeyId: task.ownerKeyId,
    model: task.model,
    requestId: task.requestId,
    status: task.status,
    request: task.request,
    result: task.result,
    error: task.error,
    attempts: task.attempts,
    createdAt: task.createdAt,
    updatedAt: task.updatedAt,
    deadlineAt: task.deadlineAt,
  };
}
