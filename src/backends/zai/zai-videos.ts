import { EngineFailure } from '../../core/errors/engine-failure.ts';
import { runWithDeadline } from '../../core/media/run-with-deadline.ts';
import type { GeneratedVideo, VideoGenerator, VideoRequest } from '../../core/media/video-generator.ts';
import { maxEngineImageBytes, maxEngineVideoBytes, type EngineMediaDownload } from '../../tools/media/engine-media-download.ts';
import { imageTypeOf, videoTypeOf } from '../../tools/media/media-signature.ts';
import { asArray, asRecord, asString } from '../engine-http/wire-reading.ts';
import type { ZaiAsyncTask } from './zai-async-task.ts';

/**
 * Video generation on the upstream platform: `POST /videos/generations` (always asynchronous
 * there), polled until done; the video and its cover are downloaded so that this server serves
 * them. Input images travel as data URLs, the one form that needs no URL the upstream can reach.
 */
export class ZaiVideoGenerator implements VideoGenerator {
  readonly #modelName: string;
  readonly #upstreamModel: string;
  readonly #timeoutMs: number;
  readonly #tasks: ZaiAsyncTask;
  readonly #download: EngineMediaDownload;

  constructor(modelName: string, upstreamModel: string, timeoutMs: number, tasks: ZaiAsyncTask, download: EngineMediaDownload) {
    this.#modelName = modelName;
    this.#upstreamModel = upstreamModel;
    this.#timeoutMs = timeoutMs;
    this.#tasks = tasks;
    this.#download = download;
  }

  generate(request: VideoRequest): Promise<GeneratedVideo> {
    const model = this.#modelName;
    const timeoutError = () =>
      new EngineFailure('timeout', model, `The upstream platform did not finish the video of model '${model}' within ${this.#timeoutMs / 1000} s (timeoutMs).`);
    return runWithDeadline(request.signal, this.#timeoutMs, timeoutError, async (signal) => {
      const answer = await this.#tasks.run('/videos/generations', this.#body(request), signal);
      const result = asRecord(asArray(answer['video_result'])[0]);
      const url = asString(result?.['url']);
      if (url === undefined)
        throw new EngineFailure('bad-answer', model, `The upstream platform finished the video of model '${model}' without video_result[0].url.`);
      const { bytes } = await this.#download.download(url, maxEngineVideoBytes, signal);
      const contentType = videoTypeOf(bytes);
      if (contentType === undefined)
        throw new EngineFailure('bad-answer', model, `The upstream platform's video ${url} for model '${model}' is not an MP4, QuickTime or WebM file.`);
      const coverUrl = asString(result?.['cover_image_url']);
      if (coverUrl === undefined || coverUrl === '') return { bytes, contentType };
      const cover = (await this.#download.download(coverUrl, maxEngineImageBytes, signal)).bytes;
      const coverType = imageTypeOf(cover);
      // A cover that is not an image is left out: the platform makes one from the first frame.
      return coverType === undefined ? { bytes, contentType } : { bytes, contentType, cover: { bytes: cover, contentType: coverType } };
    });
  }

  #body(request: VideoRequest): Record<string, unknown> {
    const body: Record<string, unknown> = {
      model: this.#upstreamModel,
      quality: request.quality,
      with_audio: request.withAudio,
      fps: request.fps,
      duration: request.durationSeconds,
    };
    if (request.prompt !== undefined) body['prompt'] = request.prompt;
    if (request.size !== undefined) body['size'] = request.size;
    const images = request.images.map((image) => `data:${image.contentType};base64,${Buffer.from(image.bytes).toString('base64')}`);
    if (images.length === 1) body['image_url'] = images[0];
    else if (images.length > 1) body['image_url'] = images;
    return body;
  }
}
