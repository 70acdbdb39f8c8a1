import type { BlobStore } from '../blobs/blob-store.ts';
import { EngineFailure } from '../errors/engine-failure.ts';
import { extensionOf, readBlob } from './media-blobs.ts';
import type { CapabilitySource } from '../models/capability.ts';
import type { VideoRequest } from './video-generator.ts';

/** The engines video generation needs (the ModelBackends gives them). */
export type VideoEngines = CapabilitySource<'video'>;

/** Makes a still image of a video's first frame (ffmpeg, in tools/media). */
export type FirstFrameExtractor = (video: Uint8Array, signal: AbortSignal) => Promise<{ readonly bytes: Uint8Array; readonly contentType: string }>;

/** An input image the route checked and stored before submitting the task. */
export interface StoredInputImage {
  readonly key: string;
  readonly contentType: 'image/png' | 'image/jpeg';
}

/**
 * One video generation as a task keeps it (plain JSON): the request's fields with defaults
 * applied, and the input images as blob keys (a task row holds no megabytes of base64).
 */
export interface VideoJob {
  readonly model: string;
  readonly prompt: string | undefined;
  readonly images: readonly StoredInputImage[];
  readonly quality: VideoRequest['quality'];
  readonly withAudio: boolean;
  readonly size: string | undefined;
  readonly fps: VideoRequest['fps'];
  readonly durationSeconds: VideoRequest['durationSeconds'];
}

export interface StoredVideo {
  readonly key: string;
  readonly coverKey: string;
}

export interface VideoGenerationDependencies {
  readonly backends: VideoEngines;
  readonly blobs: BlobStore;
  /** Used when the engine gives no cover image of its own. */
  readonly extractFirstFrame: FirstFrameExtractor;
}

/**
 * Runs the model's video engine on a job and stores the video as `videos/<id>/video.<ext>` and
 * its cover (the engine's, else the first frame) as `videos/<id>/cover.<ext>`. Deterministic
 * keys: a task run again overwrites an earlier attempt's blobs.
 */
export async function generateVideo(
  deps: VideoGenerationDependencies,
  job: VideoJob,
  options: { readonly id: string; readonly signal: AbortSignal },
): Promise<StoredVideo> {
  const engine = deps.backends.capability(job.model, 'video');
  const images = [];
  for (const image of job.images) images.push({ bytes: await readBlob(deps.blobs, image.key), contentType: image.contentType });
  const video = await engine.generate({
    model: job.model,
    prompt: job.prompt,
    images,
    quality: job.quality,
    withAudio: job.withAudio,
    size: job.size,
    fps: job.fps,
    durationSeconds: job.durationSeconds,
    signal: options.signal,
  });
  const cover = video.cover ?? (await firstFrame(deps.extractFirstFrame, video.bytes, job.model, options.signal));
  const key = `videos/${options.id}/video.${extensionOf(video.contentType)}`;
  const coverKey = `videos/${options.id}/cover.${extensionOf(cover.contentType)}`;
  await deps.blobs.put(key, video.bytes, video.contentType);
  await deps.blobs.put(coverKey, cover.bytes, cover.contentType);
  return { key, coverKey };
}

async function firstFrame(
  extract: FirstFrameExtractor,
  video: Uint8Array,
  model: string,
  signal: AbortSignal,
): Promise<{ readonly bytes: Uint8Array; readonly contentType: string }> {
  try {
    return await extract(video, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    // ffmpeg cannot read the engine's video: the engine's answer is broken.
    throw new EngineFailure('bad-answer', model, `The video of model '${model}' has no readable first frame for its cover: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
