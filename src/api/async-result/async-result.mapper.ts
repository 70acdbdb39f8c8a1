import type { Static } from '@sinclair/typebox';
import type { BlobStore } from '../../core/blobs/blob-store.ts';
import { ApiError } from '../../core/errors/api-error.ts';
import type { TaskRecord } from '../../core/tasks/task.ts';
import type { ImageTaskResult, VideoTaskResult } from './async-task.schema.ts';

type ImageWire = Static<typeof ImageTaskResult>;
type VideoWire = Static<typeof VideoTaskResult>;

/**
 * A task as GET /async-result answers it: the image or the video variant by its kind. Stored blob
 * keys become absolute download URLs; PROCESSING and FAIL carry an empty result array, and FAIL
 * an `error` with the reason.
 */
export async function toAsyncTaskResult(task: TaskRecord, blobs: BlobStore, origin: string): Promise<ImageWire | VideoWire> {
  const common = {
    model: task.model,
    task_status: task.status,
    request_id: task.requestId,
    id: task.id,
    ...(task.status === 'FAIL' ? { error: task.error ?? { code: '500', message: 'The task failed.' } } : {}),
  };
  const succeeded = task.status === 'SUCCESS';
  switch (task.kind) {
    case 'image': {
      const keys = succeeded ? readImageKeys(task) : [];
      return { ...common, image_result: await Promise.all(keys.map(async (key) => ({ url: await blobs.downloadUrl(key, origin) }))) };
    }
    case 'video': {
      const videos = succeeded ? readVideoKeys(task) : [];
      const video_result = await Promise.all(
        videos.map(async (video) => ({
          url: await blobs.downloadUrl(video.key, origin),
          cover_image_url: await blobs.downloadUrl(video.coverKey, origin),
        })),
      );
      return { ...common, video_result };
    }
    default:
      throw new ApiError('500', `Task '${task.id}' is of kind '${task.kind}', which this endpoint cannot show.`);
  }
}

/** `{ images: [{ key }] }`, as the image task handler stores it. */
function readImageKeys(task: TaskRecord): string[] {
  const images = (task.result as { images?: unknown } | null | undefined)?.images;
  if (!Array.isArray(images) || !images.every((image) => typeof (image as { key?: unknown } | null)?.key === 'string')) {
    throw unreadable(task);
  }
  return images.map((image) => (image as { key: string }).key);
}

/** `{ videos: [{ key, coverKey }] }`, as the video task handler stores it. */
function readVideoKeys(task: TaskRecord): { key: string; coverKey: string }[] {
  const videos = (task.result as { videos?: unknown } | null | undefined)?.videos;
  const readable = (video: unknown): video is { key: string; coverKey: string } =>
    typeof (video as { key?: unknown } | null)?.key === 'string' && typeof (video as { coverKey?: unknown }).coverKey === 'string';
  if (!Array.isArray(videos) || !videos.every(readable)) throw unreadable(task);
  return videos;
}

function unreadable(task: TaskRecord): ApiError {
  return new ApiError('500', `The stored result of task '${task.id}' cannot be read.`);
}
