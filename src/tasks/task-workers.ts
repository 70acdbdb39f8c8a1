import type { TaskHandler, TaskService } from '../core/tasks/task.ts';
import type { Database } from '../store/database.ts';
import type { TaskFinishedListener } from './task-runner.ts';

/** The task service plus this process's workers: the composition starts and stops them. */
export interface TaskWorkers extends TaskService {
  /** `embedded`: workers poll the database; `bullmq`: Redis dispatches, the database stays the source of truth. */
  readonly mode: 'embedded' | 'bullmq';
  /** Starts workers for the kinds of the registered handlers (a process with none only submits and reads). */
  start(): void;
  /** Stops the workers: running tasks are aborted and handed back to the queue for another worker. */
  close(): Promise<void>;
}

/** Timings of the queue; the defaults suit production, tests shorten them. */
export interface TaskTuning {
  /** How long a claim holds without a heartbeat; a worker that dies loses its tasks this long after. */
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  /** How often idle embedded workers look for work (a submission in the same process wakes them at once). */
  readonly pollMs: number;
  /** How often abandoned tasks are failed and, with BullMQ, lost dispatches re-sent. */
  readonly sweepMs: number;
  /** Runs per task, the first included. */
  readonly maxAttempts: number;
  /** Backoff before retry n is retryBaseMs * 2^(n-1), at most retryMaxMs. */
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
}

export const defaultTaskTuning: TaskTuning = {
  leaseMs: 30_000,
  heartbeatMs: 10_000,
  pollMs: 500,
  sweepMs: 5_000,
  maxAttempts: 3,
  retryBaseMs: 2_000,
  retryMaxMs: 60_000,
};

/** Where worker trouble is reported (the database or Redis failing); it never reaches a client. */
export type TaskLog = (message: string, error?: unknown) => void;

export interface TaskWorkersOptions {
  readonly database: Database;
  /** BullMQ on this Redis when set; otherwise the embedded queue. */
  readonly redisUrl?: string | undefined;
  readonly handlers: readonly TaskHandler[];
  /** Tasks this process runs at once. */
  readonly concurrency?: number;
  readonly tuning?: Partial<TaskTuning>;
  /** Where failures the workers survive are logged (a handler's bug, a heartbeat or queue error). */
  readonly log: TaskLog;
  /** Hears of each task a worker of this process ends (success, fail, timeout): the metrics. */
  readonly onTaskFinished?: TaskFinishedListener;
}
