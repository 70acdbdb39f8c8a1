/** task_status exactly as the platform spells it (docs/wire.md §4). */
export type TaskStatus = 'PROCESSING' | 'SUCCESS' | 'FAIL';

/** A durable async task row (docs/architecture.md, "Async tasks"). */
export interface TaskRecord {
  readonly id: string;
  /** Which handler runs it, e.g. `image` or `video`. */
  readonly kind: string;
  /** The key that submitted it: the only key that may read it. */
  readonly ownerKeyId: string;
  readonly model: string;
  readonly requestId: string;
  readonly status: TaskStatus;
  /** The submitted request (JSON), as the handler needs it. */
  readonly request: unknown;
  /** The handler's result (JSON) once SUCCESS. */
  readonly result: unknown;
  /** Why it failed, once FAIL. */
  readonly error: { readonly code: string; readonly message: string } | undefined;
  readonly attempts: number;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** After this Unix ms the task fails as timed out. */
  readonly deadlineAt: number;
}

/**
 * Runs the tasks of one kind. Throw ApiError for a clear failure; a RetryableTaskError (or a
 * retryable ApiError) to try again. The returned JSON is stored as the task's result; for `image`
 * it is `{ images: [{ key }] }`, for `video` `{ videos: [{ key, coverKey }] }` (blob keys). The
 * signal aborts at the task's deadline and when the worker shuts down.
 */
export interface TaskHandler {
  readonly kind: string;
  run(task: TaskRecord, signal: AbortSignal): Promise<unknown>;
  /** Concurrency key (e.g. the model) and its limit: tasks of one key run at most `limit` at once in each worker process. */
  concurrency?(task: TaskRecord): { readonly key: string; readonly limit: number };
}

export interface TaskSubmission {
  readonly kind: string;
  readonly ownerKeyId: string;
  readonly model: string;
  readonly requestId: string;
  readonly request: unknown;
  /** How long the task may take, from submission; by default per kind (task-timeouts.ts: image 10 min, video 30 min). */
  readonly timeoutMs?: number;
}

/** The task engine: durable rows plus a queue (embedded, or BullMQ on Redis), same interface. */
export interface TaskService {
  submit(submission: TaskSubmission): Promise<TaskRecord>;
  /** The task, when it exists and `ownerKeyId` owns it; undefined otherwise (the API answers 404 for both). */
  get(id: string, ownerKeyId: string): Promise<TaskRecord | undefined>;
}
