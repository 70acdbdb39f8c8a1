import type { BlobStore } from '../blobs/blob-store.ts';
import { ApiError } from '../errors/api-error.ts';
import type { TaskHandler, TaskRecord } from '../tasks/task.ts';
import { extractFirstFrame } from '../../tools/media/first-frame.ts';
import { generateImages, type ImageEngines, type ImageJob } from './generate-images.ts';
import { generateVideo, type FirstFrameExtractor, type VideoEngines, type VideoJob } from './generate-video.ts';

export interface MediaTaskDependencies {
  readonly engines: ImageEngines & VideoEngines;
  readonly blobs: BlobStore;
  /** Makes the cover of a video whose engine gives none; by default ffmpeg (tools/media). */
  readonly extractFirstFrame?: FirstFrameExtractor;
  /** How many tasks a model's engine runs at once (the catalog's maxConcurrency); default 1. */
  readonly engineConcurrency?: (model: string, capability: 'image' | 'video') => number | undefined;
}

/** What an `image` task's result holds: blob keys; GET /async-result turns them into download URLs. */
export interface ImageTaskResult {
  readonly images: readonly { readonly key: string }[];
}

/** What a `video` task's result holds. */
export interface VideoTaskResult {
  readonly videos: readonly { readonly key: string; readonly coverKey: string }[];
}

/**
 * The handlers of the `image` and `video` tasks: each runs the model's engine on the job the
 * route submitted and stores the media in the blob store; a failing engine's ApiError becomes
 * the task's FAIL reason.
 */
export function createMediaTaskHandlers(deps: MediaTaskDependencies): TaskHandler[] {
  // Bounded concurrency per engine: the tasks of one model share that model's slots.
  const limitFor = (capability: 'image' | 'video') => (task: TaskRecord) => ({
    key: `${capability}:${task.model}`,
    limit: deps.engineConcurrency?.(task.model, capability) ?? 1,
  });
  const image: TaskHandler = {
    kind: 'image',
    concurrency: limitFor('image'),
    async run(task, signal): Promise<ImageTaskResult> {
      const job = readImageJob(task);
      const stored = await generateImages(deps, job, { id: task.id, asyncTask: true, signal });
      return { images: stored.keys.map((key) => ({ key })) };
    },
  };
  const video: TaskHandler = {
    kind: 'video',
    concurrency: limitFor('video'),
    async run(task, signal): Promise<VideoTaskResult> {
      const job = readVideoJob(task);
      const stored = await generateVideo({ ...deps, extractFirstFrame: deps.extractFirstFrame ?? extractFirstFrame }, job, { id: task.id, signal });
      // The inputs served their purpose; a failed task keeps them for its next attempt.
      await Promise.all(job.images.map((input) => deps.blobs.delete(input.key).catch(() => undefined)));
      return { videos: [{ key: stored.key, coverKey: stored.coverKey }] };
    },
  };
  return [image, video];
}

/** Task requests are written by the routes; a row that does not read back is a server-side fault. */
function readImageJob(task: TaskRecord): ImageJob {
  const request = task.request as Partial<ImageJob> | null;
  if (
    typeof request?.model !== 'string' ||
    typeof request.prompt !== 'string' ||
    typeof request.width !== 'number' ||
    typeof request.height !== 'number' ||
    (request.quality !== 'hd' && request.quality !== 'standard')
  ) {
    throw malformed(task);
  }
  return { model: request.model, prompt: request.prompt, width: request.width, height: request.height, quality: request.quality };
}

function readVideoJob(task: TaskRecord): VideoJob {
  const request = task.request as Partial<VideoJob> | null;
  if (
    typeof request?.model !== 'string' ||
    !Array.isArray(request.images) ||
    (request.quality !== 'speed' && request.quality !== 'quality') ||
    (request.fps !== 30 && request.fps !== 60) ||
    (request.durationSeconds !== 5 && request.durationSeconds !== 10)
  ) {
    throw malformed(task);
  }
  return {
    model: request.model,
    prompt: typeof request.prompt === 'string' ? request.prompt : undefined,
    images: request.images,
    quality: request.quality,
    withAudio: request.withAudio === true,
    size: typeof request.size === 'string' ? request.size : undefined,
    fps: request.fps,
    durationSeconds: request.durationSeconds,
  };
}

function malformed(task: TaskRecord): ApiError {
  return new ApiError('500', `The stored request of ${task.kind} task '${task.id}' cannot be read.`);
}
