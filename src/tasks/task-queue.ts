import type { TaskHandler } from '../core/tasks/task.ts';
import type { QueuedTask, TaskRepository } from '../store/task-repository.ts';
import type { TaskLog, TaskTuning } from './task-workers.ts';
import type { TaskRunner } from './task-runner.ts';
import type { TaskTraces } from './task-traces.ts';

/** What every queue implementation is built from. */
export interface TaskQueueOptions {
  readonly repository: TaskRepository;
  readonly runner: TaskRunner;
  readonly handlers: ReadonlyMap<string, TaskHandler>;
  readonly concurrency: number;
  readonly tuning: TaskTuning;
  readonly workerId: string;
  readonly log: TaskLog;
  /** Each task's trace from submission to run (BullMQ sends it with the job). */
  readonly traces?: TaskTraces;
}

/** How tasks reach workers: the embedded poller or BullMQ. The database row is the truth for both. */
export interface TaskQueue {
  /** Tells the workers a task was written (embedded: wake the poller; BullMQ: add a job). Never loses the task when it fails: the sweep finds it. */
  dispatch(task: QueuedTask): Promise<void>;
  start(): void;
  close(): Promise<void>;
}
