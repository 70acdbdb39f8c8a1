import { randomUUID } from 'node:crypto';
import { invalidField } from '../../core/errors/api-error.ts';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import type { GeneratedVideo, VideoGenerator, VideoRequest } from '../../core/media/video-generator.ts';
import { imageDimensions, imageTypeOf, videoTypeOf } from '../../tools/media/media-signature.ts';
import type { ComfyOutput } from './comfyui-history.ts';
import { extensionOfFile, pickOutputs, runComfyWorkflow, type ComfyRunSettings } from './comfyui-runner.ts';
import { freshSeed, stepsFor } from './comfyui-sampling.ts';
import type { WorkflowValues } from './comfyui-workflow.ts';

const videoExtensions = new Set(['mp4', 'webm', 'mov', 'mkv', 'gif']);
const stillExtensions = new Set(['png', 'jpg', 'jpeg', 'webp']);

/**
 * Video generation with a ComfyUI workflow. Input images are uploaded first (POST /upload/image)
 * and their names fill `{{image}}` and `{{last_image}}`; the video is the first video file the
 * output nodes saved (under `gifs`, `videos` or `images`), and a still image saved beside it, if
 * any, is its cover.
 */
export class ComfyVideoGenerator implements VideoGenerator {
  readonly #settings: ComfyRunSettings;

  constructor(settings: ComfyRunSettings) {
    this.#settings = settings;
  }

  generate(request: VideoRequest): Promise<GeneratedVideo> {
    return runComfyWorkflow(
      this.#settings,
      { values: (signal) => this.#values(request, signal), collect: (outputs, view) => this.#collect(outputs, view) },
      request.signal,
    );
  }

  async #values(request: VideoRequest, signal: AbortSignal): Promise<WorkflowValues> {
    const { workflow, modelName, client } = this.#settings;
    const [first, last] = request.images;
    const said = `the workflow of model '${modelName}'`;
    if (first !== undefined && !workflow.uses('image')) throw invalidField('image_url', `${said} takes no input image`);
    if (first === undefined && workflow.uses('image')) throw invalidField('image_url', `${said} needs a first-frame image`);
    if (last !== undefined && !workflow.uses('last_image')) throw invalidField('image_url', `${said} takes one image, not a first and a last frame`);
    if (last === undefined && workflow.uses('last_image')) throw invalidField('image_url', `${said} needs two images, a first and a last frame`);
    const { width, height } = videoSize(request.size, first?.bytes);
    const values: WorkflowValues = {
      prompt: request.prompt ?? '',
      width,
      height,
      seed: freshSeed(),
      steps: stepsFor(request.quality),
      quality: request.quality,
      fps: request.fps,
      duration: request.durationSeconds,
      frames: request.fps * request.durationSeconds,
      with_audio: request.withAudio,
    };
    const batch = randomUUID();
    if (first !== undefined)
      values.image = await client.uploadImage(first.bytes, `model-platform-${batch}-first.${extensionOf(first.contentType)}`, first.contentType, signal);
    if (last !== undefined)
      values.last_image = await client.uploadImage(last.bytes, `model-platform-${batch}-last.${extensionOf(last.contentType)}`, last.contentType, signal);
    return values;
  }

  async #collect(outputs: readonly ComfyOutput[], view: (file: ComfyOutput) => Promise<Uint8Array>): Promise<GeneratedVideo> {
    const { workflow, modelName } = this.#settings;
    const [file] = pickOutputs(outputs, (output) => videoExtensions.has(extensionOfFile(output.filename)));
    if (file === undefined) {
      throw new EngineFailure(
        'misconfigured',
        modelName,
        `The workflow of model '${modelName}' (${workflow.path}) saved no video; it needs a video output node (SaveVideo, VHS_VideoCombine).`,
      );
    }
    const bytes = await view(file);
    const contentType = videoTypeOf(bytes) ?? (imageTypeOf(bytes) === 'image/gif' ? 'image/gif' : undefined);
    if (contentType === undefined)
      throw new EngineFailure('bad-answer', modelName, `ComfyUI served ${file.filename} of model '${modelName}' as bytes that are not a video.`);
    const [still] = pickOutputs(outputs, (output) => stillExtensions.has(extensionOfFile(output.filename)));
    if (still === undefined) return { bytes, contentType };
    const coverBytes = await view(still);
    const coverType = imageTypeOf(coverBytes);
    return coverType === undefined ? { bytes, contentType } : { bytes, contentType, cover: { bytes: coverBytes, contentType: coverType } };
  }
}

/** `WxH` as asked, else the platform's documented default: short side 1080, the long side following the first image (16:9 without one). */
function videoSize(size: string | undefined, firstImage: Uint8Array | undefined): { width: number; height: number } {
  const asked = size === undefined ? undefined : /^(\d+)x(\d+)$/.exec(size);
  if (asked) return { width: Number(asked[1]), height: Number(asked[2]) };
  const image = firstImage === undefined ? undefined : imageDimensions(firstImage);
  if (image === undefined || image.width === 0 || image.height === 0) return { width: 1920, height: 1080 };
  const long = Math.min(3840, Math.round((1080 * Math.max(image.width, image.height)) / Math.min(image.width, image.height) / 16) * 16);
  return image.width >= image.height ? { width: long, height: 1080 } : { width: 1080, height: long };
}

function extensionOf(contentType: string): string {
  return contentType === 'image/jpeg' ? 'jpg' : 'png';
}
