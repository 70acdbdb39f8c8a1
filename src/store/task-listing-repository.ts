import type { TaskStatus } from '../core/tasks/task.ts';
import type { Database } from './database.ts';
import { toQueuedTask, type QueuedTask } from './task-repository.ts';

export interface TaskListingQuery {
  /** Only this key's tasks (a key holder's own; an operator's filter). */
  readonly ownerKeyId?: string | undefined;
  readonly status?: TaskStatus | undefined;
  readonly kind?: string | undefined;
  /** The page after this task (newest first: older than it). */
  readonly after?: { readonly createdAt: number; readonly id: string } | undefined;
  readonly limit: number;
}

/** Task listings for operators and key holders (GET /admin/tasks), newest first, paged by a keyset. */
export class TaskListingRepository {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  /** Up to `limit + 1` tasks: the extra one only tells that another page follows. */
  async list(query: TaskListingQuery): Promise<QueuedTask[]> {
    let select = this.#database.db.selectFrom('tasks').selectAll();
    if (query.ownerKeyId !== undefined) select = select.where('owner_key_id', '=', query.ownerKeyId);
    if (query.status !== undefined) select = select.where('status', '=', query.status);
    if (query.kind !== undefined) select = select.where('kind', '=', query.kind);
    const after = query.after;
    if (after !== undefined) {
      select = select.where((builder) =>
        builder.or([builder('created_at', '<', after.createdAt), builder.and([builder('created_at', '=', after.createdAt), builder('id', '<', after.id)])]),
      );
    }
    const rows = await select
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(query.limit + 1)
      .execute();
    return rows.map(toQueuedTask);
  }
}
