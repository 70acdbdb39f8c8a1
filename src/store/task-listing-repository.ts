import type { TaskListing, TaskListingQuery } from '../core/tasks/task-listing.ts';
import type { Database } from './database.ts';
import { toQueuedTask, type QueuedTask } from './task-repository.ts';

/** The task listing (core/tasks/task-listing.ts) over the `tasks` table. */
export class TaskListingRepository implements TaskListing {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

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
