import type { QueuedTask } from '../store/task-repository.ts';

/** How tasks reach workers: the embedded poller or BullMQ. The database row is the truth for both. */
export interface TaskQueue {
  /** Tells the workers a task was written (embedded: wake the poller; BullMQ: add a job). Never loses the task when it fails: the sweep finds it. */
  dispatch(task: QueuedTask): Promise<void>;
  start(): void;
  close(): Promise<void>;
}
