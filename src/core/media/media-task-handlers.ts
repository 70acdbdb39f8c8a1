import type { BlobStore } from '../blobs/blob-store.ts';
import type { TaskHandler, TaskRecord } from '../tasks/task.ts';
import { generateImages, type ImageEngines, type ImageJob } from './generate-images.ts';
import { imageTaskRequest, videoTaskRequest, type StoredImageResult, type StoredVideoResult } from './media-task-data.ts';
import { generateVideo, type FirstFrameExtractor, type VideoEngines, type VideoJob } from './generate-video.ts';

export interface MediaTaskDependencies {
  readonly backends: ImageEngines & VideoEngines;
  readonly blobs: BlobStore;
  /** Makes the cover of a video whose engine gives none (ffmpeg, tools/media/first-frame.ts). */
  readonly extractFirstFrame: FirstFrameExtractor;
  /** How many tasks a model's engine runs at once (the catalog's maxConcurrency); default 1. */
  readonly engineConcurrency?: (model: string, capability: 'image' | 'video') => number | undefined;
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
    async run(task, signal): Promise<StoredImageResult> {
      // A row that does not read back fails this task (StoredTaskData).
      const job: ImageJob = imageTaskRequest.read(task);
      const stored = await generateImages(deps, job, { id: task.id, asyncTask: true, signal });
      return { images: stored.keys.map((key) => ({ key })) };
    },
  };
  const video: TaskHandler = {
    kind: 'video',
    concurrency: limitFor('video'),
    async run(task, signal): Promise<StoredVideoResult> {
      const job = readVideoJob(task);
      const stored = await generateVideo(deps, job, { id: task.id, signal });
      // The inputs served their purpose; a failed task keeps them for its next attempt.
      await Promise.all(job.images.map((input) => deps.blobs.delete(input.key).catch(() => undefined)));
      return { videos: [{ key: stored.key, coverKey: stored.coverKey }] };
    },
  };
  return [image, video];
}

/** The job the route stored; a row that does not read back fails this task (StoredTaskData). */
function readVideoJob(task: TaskRecord): VideoJob {
  const request = videoTaskRequest.read(task);
  return {
    model: request.model,
    prompt: request.prompt,
    images: request.images,
    quality: request.quality,
    withAudio: request.withAudio,
    size: request.size,
    fps: request.fps,
    durationSeconds: request.durationSeconds,
  };
}
