import { EngineFailure } from '../../core/errors/engine-failure.ts';
import type { ContentFilterVerdict, GeneratedImage, GeneratedImages, ImageGenerator, ImageRequest } from '../../core/media/image-generator.ts';
import { runWithDeadline } from '../../core/media/run-with-deadline.ts';
import { maxEngineImageBytes, type EngineMediaDownload } from '../../tools/media/engine-media-download.ts';
import { imageTypeOf } from '../../tools/media/media-signature.ts';
import { postJson, type EngineConnection } from '../engine-http/engine-request.ts';
import { asArray, asRecord, asString } from '../engine-http/wire-reading.ts';
import type { ZaiAsyncTask } from './zai-async-task.ts';
import { readContentFilter } from './zai-content-filter.ts';

/**
 * Image generation on the upstream platform: `POST /images/generations` for the synchronous
 * endpoint; for an asynchronous task, the upstream's own `POST /async/images/generations`,
 * polled. The images it links to are downloaded and stored here, so their URLs are this
 * server's, like every other engine's.
 */
export class ZaiImageGenerator implements ImageGenerator {
  readonly #engine: EngineConnection;
  readonly #baseUrl: string;
  readonly #upstreamModel: string;
  readonly #tasks: ZaiAsyncTask;
  readonly #download: EngineMediaDownload;

  constructor(engine: EngineConnection, baseUrl: string, upstreamModel: string, tasks: ZaiAsyncTask, download: EngineMediaDownload) {
    this.#engine = engine;
    this.#baseUrl = baseUrl;
    this.#upstreamModel = upstreamModel;
    this.#tasks = tasks;
    this.#download = download;
  }

  generate(request: ImageRequest): Promise<GeneratedImages> {
    const model = this.#engine.modelName;
    const timeoutError = () =>
      new EngineFailure(
        'timeout',
        model,
        `The upstream platform did not finish the image of model '${model}' within ${this.#engine.timeoutMs / 1000} s (timeoutMs).`,
      );
    return runWithDeadline(request.signal, this.#engine.timeoutMs, timeoutError, async (signal) => {
      const body = { model: this.#upstreamModel, prompt: request.prompt, size: `${request.width}x${request.height}`, quality: request.quality };
      let urls: (string | undefined)[];
      let contentFilter: ContentFilterVerdict[] | undefined;
      if (request.asyncTask) {
        const answer = await this.#tasks.run('/async/images/generations', body, signal);
        urls = asArray(answer['image_result']).map((item) => asString(asRecord(item)?.['url']));
      } else {
        const answer = asRecord(await postJson(this.#engine, { url: `${this.#baseUrl}/images/generations`, body, signal }));
        urls = asArray(answer?.['data']).map((item) => asString(asRecord(item)?.['url']));
        contentFilter = readContentFilter(answer?.['content_filter']);
      }
      const images: GeneratedImage[] = [];
      for (const url of urls) {
        if (url === undefined) continue;
        const { bytes } = await this.#download.download(url, maxEngineImageBytes, signal);
        const contentType = imageTypeOf(bytes);
        if (contentType === undefined)
          throw new EngineFailure('bad-answer', model, `The upstream platform's image ${url} for model '${model}' is not a PNG, JPEG, WebP or GIF image.`);
        images.push({ bytes, contentType });
      }
      if (images.length === 0)
        throw new EngineFailure('bad-answer', model, `The upstream platform answered the image request for model '${model}' without an image URL.`);
      return { images, contentFilter };
    });
  }
}
