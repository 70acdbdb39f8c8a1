import type { StoredInputImage, VideoJob } from '../../core/media/generate-video.ts';
import type { VideoGenerationRequest } from './videos.schema.ts';

/** The request with the platform's documented defaults (speed, no audio, 30 fps, 5 s) and the stored input images. */
export function toVideoJob(body: VideoGenerationRequest, images: readonly StoredInputImage[]): VideoJob {
  const prompt = body.prompt?.trim() === '' ? undefined : body.prompt;
  return {
    model: body.model,
    prompt,
    images,
    quality: body.quality ?? 'speed',
    withAudio: body.with_audio ?? false,
    size: body.size,
    fps: body.fps ?? 30,
    durationSeconds: body.duration ?? 5,
  };
}
