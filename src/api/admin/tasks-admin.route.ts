import type { BlobStore } from '../../core/blobs/blob-store.ts';
import { ApiError } from '../../core/errors/api-error.ts';
import { imageTaskResult, videoTaskResult } from '../../core/media/media-task-data.ts';
import type { TaskRecord } from '../../core/tasks/task.ts';
import { rateLimitOnly } from '../../http/admission-hooks.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { requestOrigin } from '../blobs/request-origin.ts';
import { responses } from '../shared/common.schema.ts';
import { isAdminKey } from './admin-scope.ts';
import { TaskList, TaskListQuery, type TaskListItem } from './tasks-admin.schema.ts';

const defaultLimit = 20;

/**
 * GET /admin/tasks: async tasks (images, videos, async chat, agents' videos) with status, attempts
 * and error, newest first. Scoped rather than refused: an admin key sees every key's tasks and may
 * filter by key_id; any other key sees its own only, and naming another key is refused (403).
 */
export function registerTaskAdminRoutes(app: App, deps: Pick<AppDependencies, 'taskListing' | 'blobs'>): void {
  app.get(
    '/tasks',
    {
      schema: {
        operationId: 'listTasks',
        tags: ['admin'],
        summary: 'Lists async tasks newest first (an admin key: every key; another key: its own), paged by next_cursor.',
        querystring: TaskListQuery,
        response: responses(TaskList),
      },
      config: { admission: rateLimitOnly, ownRowsForUsers: true },
    },
    async (request) => {
      const { query } = request;
      const ownKeyId = request.apiKey?.id ?? '';
      if (!isAdminKey(request) && query.key_id !== undefined && query.key_id !== ownKeyId) {
        throw new ApiError('403', 'This API key may list only its own tasks: leave key_id out, or give its own id.');
      }
      const limit = query.limit === undefined ? defaultLimit : Number(query.limit);
      const tasks = await deps.taskListing.list({
        ownerKeyId: isAdminKey(request) ? query.key_id : ownKeyId,
        status: query.status,
        kind: query.kind,
        after: parseCursor(query.after),
        limit,
      });
      const page = tasks.slice(0, limit);
      const last = page.at(-1);
      const hasMore = tasks.length > limit;
      const origin = requestOrigin(request);
      return {
        object: 'list' as const,
        data: await Promise.all(page.map((task) => toTaskListItem(task, deps.blobs, origin))),
        has_more: hasMore,
        next_cursor: hasMore && last !== undefined ? `${last.createdAt}.${last.id}` : null,
      };
    },
  );
}

function parseCursor(cursor: string | undefined): { createdAt: number; id: string } | undefined {
  if (cursor === undefined) return undefined;
  const dot = cursor.indexOf('.');
  return { createdAt: Number(cursor.slice(0, dot)), id: cursor.slice(dot + 1) };
}

async function toTaskListItem(task: TaskRecord, blobs: BlobStore, origin: string): Promise<TaskListItem> {
  return {
    id: task.id,
    object: 'task',
    kind: task.kind,
    model: task.model,
    key_id: task.ownerKeyId,
    request_id: task.requestId,
    task_status: task.status,
    attempts: task.attempts,
    error: task.error === undefined ? null : { code: task.error.code, message: task.error.message },
    created_at: Math.floor(task.createdAt / 1000),
    updated_at: Math.floor(task.updatedAt / 1000),
    deadline_at: Math.floor(task.deadlineAt / 1000),
    media: await mediaOf(task, blobs, origin),
  };
}

/** Download links of a successful image or video task; a row that cannot be read shows none (the task's own reads report it). */
async function mediaOf(task: TaskRecord, blobs: BlobStore, origin: string): Promise<TaskListItem['media']> {
  if (task.status !== 'SUCCESS') return [];
  if (task.kind === 'image' && imageTaskResult.matches(task)) {
    return Promise.all(imageTaskResult.read(task).images.map(async (image) => ({ type: 'image' as const, url: await blobs.downloadUrl(image.key, origin) })));
  }
  if (task.kind === 'video' && videoTaskResult.matches(task)) {
    return Promise.all(
      videoTaskResult.read(task).videos.map(async (video) => ({
        type: 'video' as const,
        url: await blobs.downloadUrl(video.key, origin),
        cover_image_url: await blobs.downloadUrl(video.coverKey, origin),
      })),
    );
  }
  return [];
}
