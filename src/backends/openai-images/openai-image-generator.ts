import { flaggedWithoutLevel } from '../../core/errors/content-filter.ts';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import type { GeneratedImage, GeneratedImages, ImageGenerator, ImageRequest } from '../../core/media/image-generator.ts';
import { engineErrorMessage, engineHttpError } from '../engine-http/engine-http-error.ts';
import { postJson, type EngineConnection } from '../engine-http/engine-request.ts';
import { asArray, asRecord, asString } from '../engine-http/wire-reading.ts';
import { maxEngineImageBytes, type EngineMediaDownload } from '../../tools/media/engine-media-download.ts';
import { imageTypeOf } from '../../tools/media/media-signature.ts';

/** How OpenAI and its imitators say a prompt was refused by their safety system. */
const contentPolicyPattern = /content[_ ]policy|safety system|moderation_blocked/i;

/**
 * An OpenAI-compatible image server (`POST {baseUrl}/images/generations`: OpenAI, LocalAI,
 * vLLM-Omni and the like). Asks for one image as base64 so nothing else is fetched; a server
 * that answers with a `url` instead has it downloaded. Servers that refuse `response_format`
 * (gpt-image-1 does) are asked once more without it.
 */
export class OpenAiImageGenerator implements ImageGenerator {
  readonly #engine: EngineConnection;
  readonly #url: string;
  readonly #upstreamModel: string;
  readonly #download: EngineMediaDownload;

  constructor(engine: EngineConnection, baseUrl: string, upstreamModel: string, download: EngineMediaDownload) {
    this.#engine = { ...engine, httpError: (status, text) => imageHttpError(engine.modelName, status, text) };
    this.#url = `${baseUrl}/images/generations`;
    this.#upstreamModel = upstreamModel;
    this.#download = download;
  }

  async generate(request: ImageRequest): Promise<GeneratedImages> {
    const body: Record<string, unknown> = {
      model: this.#upstreamModel,
      prompt: request.prompt,
      size: `${request.width}x${request.height}`,
      // DALL-E 3's words, which are the platform's: hd and standard.
      quality: request.quality,
      n: 1,
      response_format: 'b64_json',
    };
    let answer: unknown;
    try {
      answer = await postJson(this.#engine, { url: this.#url, body, signal: request.signal });
    } catch (error) {
      if (!(error instanceof EngineFailure && error.kind === 'rejected-input' && /response_format/.test(error.message))) throw error;
      delete body['response_format'];
      answer = await postJson(this.#engine, { url: this.#url, body, signal: request.signal });
    }
    const items = asArray(asRecord(answer)?.['data']);
    const images: GeneratedImage[] = [];
    for (const item of items) images.push(await this.#imageOf(asRecord(item), request.signal));
    if (images.length === 0) {
      const model = this.#engine.modelName;
      throw new EngineFailure('bad-answer', model, `The engine for model '${model}' answered without an image (no data[].b64_json or data[].url).`);
    }
    return { images, contentFilter: undefined };
  }

  async #imageOf(item: Readonly<Record<string, unknown>> | undefined, signal: AbortSignal): Promise<GeneratedImage> {
    const base64 = asString(item?.['b64_json']);
    const url = asString(item?.['url']);
    let bytes: Uint8Array;
    if (base64 !== undefined) bytes = Buffer.from(base64, 'base64');
    else if (url !== undefined) bytes = (await this.#download.download(url, maxEngineImageBytes, signal)).bytes;
    else
      throw new EngineFailure(
        'bad-answer',
        this.#engine.modelName,
        `The engine for model '${this.#engine.modelName}' answered an image with neither b64_json nor url.`,
      );
    const contentType = imageTypeOf(bytes);
    if (contentType === undefined) {
      const model = this.#engine.modelName;
      throw new EngineFailure('bad-answer', model, `The engine for model '${model}' answered bytes that are not a PNG, JPEG, WebP or GIF image.`);
    }
    return { bytes, contentType };
  }
}

/** The OpenAI-compatible error reading, plus the safety refusal: the caller's prompt was flagged. */
function imageHttpError(model: string, status: number, bodyText: string): EngineFailure {
  if (status === 400 && contentPolicyPattern.test(bodyText)) {
    const engineMessage = engineErrorMessage(bodyText);
    return new EngineFailure('content-filtered', model, `The engine for model '${model}' refused the prompt: ${engineMessage}`, {
      engineStatus: status,
      engineMessage,
      contentFilter: flaggedWithoutLevel('user'),
    });
  }
  return engineHttpError(model, status, bodyText);
}
