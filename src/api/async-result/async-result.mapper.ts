import type { Static } from '@sinclair/typebox';
import type { BlobStore } from '../../core/blobs/blob-store.ts';
import { ApiError } from '../../core/errors/api-error.ts';
import { imageTaskResult, videoTaskResult } from '../../core/media/media-task-data.ts';
import type { TaskRecord } from '../../core/tasks/task.ts';
import { toChatTaskAnswer } from '../async-chat/async-chat.mapper.ts';
import type { ChatTaskResult, ImageTaskResult, VideoTaskResult } from './async-task.schema.ts';

type ImageWire = Static<typeof ImageTaskResult>;
type VideoWire = Static<typeof VideoTaskResult>;
type ChatWire = Static<typeof ChatTaskResult>;

/**
 * A task as GET /async-result answers it: the image, video or chat variant by its kind. Stored blob
 * keys become absolute download URLs; PROCESSING and FAIL carry an empty result array, and FAIL
 * an `error` with the reason.
 */
export async function toAsyncTaskResult(task: TaskRecord, blobs: BlobStore, origin: string): Promise<ImageWire | VideoWire | ChatWire> {
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
      const keys = succeeded ? imageTaskResult.read(task).images.map((image) => image.key) : [];
      return { ...common, image_result: await Promise.all(keys.map(async (key) => ({ url: await blobs.downloadUrl(key, origin) }))) };
    }
    case 'video': {
      const videos = succeeded ? videoTaskResult.read(task).videos : [];
      const video_result = await Promise.all(
        videos.map(async (video) => ({
          url: await blobs.downloadUrl(video.key, origin),
          cover_image_url: await blobs.downloadUrl(video.coverKey, origin),
        })),
      );
      return { ...common, video_result };
    }
    case 'chat':
      return { ...toChatTaskAnswer(task), ...common };
    default:
      throw new ApiError('500', `Task '${task.id}' is of kind '${task.kind}', which this endpoint cannot show.`);
  }
}
