import type { ExpressionBuilder, Selectable } from 'kysely';
import { UnparsableJson } from '../core/tasks/stored-task-data.ts';
import type { TaskRecord, TaskStatus } from '../core/tasks/task.ts';
import type { Database } from './database.ts';
import type { DatabaseSchema, TaskTable } from './database-schema.ts';

/** A task as the queue sees it: the record plus its bookkeeping. */
export interface QueuedTask extends TaskRecord {
  readonly state: 'queued' | 'running' | 'done';
  readonly runAfter: number;
  readonly leaseOwner: string | undefined;
  readonly leaseExpiresAt: number | undefined;
}

/**
 * Proves a worker still holds a task: the lease owner and the attempt it claimed. Every write a
 * worker makes is conditional on it, so a worker whose lease was taken over writes nothing.
 */
export interface TaskFence {
  readonly id: string;
  readonly leaseOwner: string;
  readonly attempt: number;
}

export interface NewTask {
  readonly id: string;
  readonly kind: string;
  readonly ownerKeyId: string;
  readonly model: string;
  readonly requestId: string;
  readonly request: unknown;
  readonly createdAt: number;
  readonly deadlineAt: number;
}

export interface TaskError {
  readonly code: string;
  readonly message: string;
}

type TaskExpression = ExpressionBuilder<DatabaseSchema, 'tasks'>;

/** The `tasks` table. Claims are single conditional UPDATEs, atomic on SQLite and PostgreSQL alike. */
export class TaskRepository {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  async insert(task: NewTask): Promise<QueuedTask> {
    const row: TaskTable = {
      id: task.id,
      kind: task.kind,
      owner_key_id: task.ownerKeyId,
      model: task.model,
      request_id: task.requestId,
      status: 'PROCESSING',
      state: 'queued',
      request: JSON.stringify(task.request ?? null),
      result: null,
      error_code: null,
      error_message: null,
      attempts: 0,
      run_after: task.createdAt,
      lease_owner: null,
      lease_expires_at: null,
      created_at: task.createdAt,
      updated_at: task.createdAt,
      deadline_at: task.deadlineAt,
    };
    await this.#database.db.insertInto('tasks').values(row).execute();
    return toQueuedTask(row);
  }

  async find(id: string): Promise<QueuedTask | undefined> {
    const row = await this.#database.db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : toQueuedTask(row);
  }

  async findOwned(id: string, ownerKeyId: string): Promise<QueuedTask | undefined> {
    const row = await this.#database.db.selectFrom('tasks').selectAll().where('id', '=', id).where('owner_key_id', '=', ownerKeyId).executeTakeFirst();
    return row === undefined ? undefined : toQueuedTask(row);
  }

  /** Tasks of these kinds a worker may claim now, oldest first (read without locks; `claim` decides). */
  async listClaimable(kinds: readonly string[], now: number, maxAttempts: number, limit: number): Promise<QueuedTask[]> {
    if (kinds.length === 0) return [];
    const rows = await this.#database.db
      .selectFrom('tasks')
      .selectAll()
      .where((builder) => claimable(builder, now, maxAttempts))
      .where('kind', 'in', kinds)
      .orderBy('run_after')
      .orderBy('created_at')
      .limit(limit)
      .execute();
    return rows.map(toQueuedTask);
  }

  /**
   * Takes the task for `leaseOwner` if it is still claimable: queued and due, or running under a
   * lease that expired (its worker died). On PostgreSQL a concurrent claim of the same row waits
   * for the first and then re-checks these conditions, so exactly one of them gets the row.
   */
  async claim(id: string, leaseOwner: string, leaseUntil: number, now: number, maxAttempts: number): Promise<QueuedTask | undefined> {
    const row = await this.#database.db
      .updateTable('tasks')
      .set((builder) => ({
        state: 'running',
        lease_owner: leaseOwner,
        lease_expires_at: leaseUntil,
        attempts: builder('attempts', '+', 1),
        updated_at: now,
      }))
      .where('id', '=', id)
      .where((builder) => claimable(builder, now, maxAttempts))
      .returningAll()
      .executeTakeFirst();
    return row === undefined ? undefined : toQueuedTask(row);
  }

  /** Heartbeat: false when the lease is no longer this worker's (the task was taken over or ended). */
  async extendLease(fence: TaskFence, leaseUntil: number, now: number): Promise<boolean> {
    return this.#updateHeld(fence, { lease_expires_at: leaseUntil, updated_at: now });
  }

  async complete(fence: TaskFence, result: unknown, now: number): Promise<boolean> {
    return this.#updateHeld(fence, {
      status: 'SUCCESS',
      state: 'done',
      result: JSON.stringify(result ?? null),
      error_code: null,
      error_message: null,
      lease_owner: null,
      lease_expires_at: null,
      updated_at: now,
    });
  }

  async fail(fence: TaskFence, error: TaskError, now: number): Promise<boolean> {
    return this.#updateHeld(fence, { ...failed(error), updated_at: now });
  }

  /** Back to the queue after a retryable failure, not before `runAfter`; the error is kept for the record. */
  async retryLater(fence: TaskFence, runAfter: number, error: TaskError, now: number): Promise<boolean> {
    return this.#updateHeld(fence, {
      state: 'queued',
      run_after: runAfter,
      error_code: error.code,
      error_message: error.message,
      lease_owner: null,
      lease_expires_at: null,
      updated_at: now,
    });
  }

  /** Hands a task back on shutdown: queued again at once, and the interrupted run does not count. */
  async release(fence: TaskFence, now: number): Promise<boolean> {
    const result = await this.#database.db
      .updateTable('tasks')
      .set((builder) => ({
        state: 'queued',
        run_after: now,
        attempts: builder('attempts', '-', 1),
        lease_owner: null,
        lease_expires_at: null,
        updated_at: now,
      }))
      .where((builder) => held(builder, fence))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * Ends what no worker will finish: tasks past their deadline that no live lease holds, and
   * tasks whose worker died on every attempt they had. Returns how many it failed.
   */
  async failAbandoned(now: number, maxAttempts: number): Promise<number> {
    const timedOut = await this.#database.db
      .updateTable('tasks')
      .set({ ...failed(timedOutError), updated_at: now })
      // `in`, not `!= 'done'`: finished rows pile up, and only this form can use the state index.
      .where('state', 'in', ['queued', 'running'])
      .where('deadline_at', '<=', now)
      .where((builder) => builder.or([builder('state', '=', 'queued'), builder('lease_expires_at', '<', now)]))
      .executeTakeFirst();
    const interrupted = await this.#database.db
      .updateTable('tasks')
      .set({ ...failed(interruptedError), updated_at: now })
      .where('state', '=', 'running')
      .where('lease_expires_at', '<', now)
      .where('attempts', '>=', maxAttempts)
      .executeTakeFirst();
    return Number(timedOut.numUpdatedRows) + Number(interrupted.numUpdatedRows);
  }

  async #updateHeld(fence: TaskFence, values: Partial<TaskTable>): Promise<boolean> {
    const result = await this.#database.db
      .updateTable('tasks')
      .set(values)
      .where((builder) => held(builder, fence))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}

/** The error of a task that ran past its deadline. */
export const timedOutError: TaskError = { code: '1230', message: 'The task timed out: it did not finish before its deadline.' };

const interruptedError: TaskError = {
  code: '1230',
  message: 'The task was given up: its worker stopped during every attempt.',
};

function failed(error: TaskError): Partial<TaskTable> {
  return {
    status: 'FAIL',
    state: 'done',
    error_code: error.code,
    error_message: error.message,
    lease_owner: null,
    lease_expires_at: null,
  };
}

function claimable(builder: TaskExpression, now: number, maxAttempts: number) {
  return builder.and([
    builder('deadline_at', '>', now),
    builder('attempts', '<', maxAttempts),
    builder.or([
      builder.and([builder('state', '=', 'queued'), builder('run_after', '<=', now)]),
      builder.and([builder('state', '=', 'running'), builder('lease_expires_at', '<', now)]),
    ]),
  ]);
}

function held(builder: TaskExpression, fence: TaskFence) {
  return builder.and([
    builder('id', '=', fence.id),
    builder('state', '=', 'running'),
    builder('lease_owner', '=', fence.leaseOwner),
    builder('attempts', '=', fence.attempt),
  ]);
}

export function toQueuedTask(row: Selectable<TaskTable>): QueuedTask {
  return {
    id: row.id,
    kind: row.kind,
    ownerKeyId: row.owner_key_id,
    model: row.model,
    requestId: row.request_id,
    status: row.status as TaskStatus,
    request: parseStoredJson(row.request),
    result: row.result === null ? undefined : parseStoredJson(row.result),
    // An earlier attempt's retryable error stays in the row; clients see an error only once FAIL.
    error: row.status === 'FAIL' && row.error_code !== null ? { code: row.error_code, message: row.error_message ?? '' } : undefined,
    attempts: Number(row.attempts),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    deadlineAt: Number(row.deadline_at),
    state: row.state as QueuedTask['state'],
    runAfter: Number(row.run_after),
    leaseOwner: row.lease_owner ?? undefined,
    leaseExpiresAt: row.lease_expires_at === null ? undefined : Number(row.lease_expires_at),
  };
}

/**
 * A damaged column must not make every read of the table throw (the queue lists many rows at
 * once): it is handed on as UnparsableJson, and the reader of that one task fails it clearly.
 */
function parseStoredJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    return new UnparsableJson((error as Error).message);
  }
}
