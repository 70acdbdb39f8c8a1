import type { TaskRecord, TaskStatus } from './task.ts';

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
export interface TaskListing {
  /** Up to `limit + 1` tasks: the extra one only tells that another page follows. */
  list(query: TaskListingQuery): Promise<TaskRecord[]>;
}
