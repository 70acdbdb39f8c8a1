import { EngineFailure } from '../../core/errors/engine-failure.ts';
import type { GeneratedImage, GeneratedImages, ImageGenerator, ImageRequest } from '../../core/media/image-generator.ts';
import { imageTypeOf } from '../../tools/media/media-signature.ts';
import { extensionOfFile, pickOutputs, runComfyWorkflow, type ComfyRunSettings } from './comfyui-runner.ts';
import { freshSeed, stepsFor } from './comfyui-sampling.ts';

const imageExtensions = new Set(['png', 'jpg', 'jpeg', 'webp']);

/** Image generation with a ComfyUI workflow: every image its output nodes saved, in node order. */
export class ComfyImageGenerator implements ImageGenerator {
  readonly #settings: ComfyRunSettings;

  constructor(settings: ComfyRunSettings) {
    this.#settings = settings;
  }

  generate(request: ImageRequest): Promise<GeneratedImages> {
    const { modelName, workflow } = this.#settings;
    return runComfyWorkflow(
      this.#settings,
      {
        values: async () => ({
          prompt: request.prompt,
          width: request.width,
          height: request.height,
          seed: freshSeed(),
          steps: stepsFor(request.quality),
          quality: request.quality,
        }),
        collect: async (outputs, view) => {
          const files = pickOutputs(outputs, (file) => imageExtensions.has(extensionOfFile(file.filename)));
          if (files.length === 0) {
            throw new EngineFailure(
              'misconfigured',
              modelName,
              `The workflow of model '${modelName}' (${workflow.path}) saved no image; it needs a SaveImage node.`,
            );
          }
          const images: GeneratedImage[] = [];
          for (const file of files) {
            const bytes = await view(file);
            const contentType = imageTypeOf(bytes);
            if (contentType === undefined)
              throw new EngineFailure('bad-answer', modelName, `ComfyUI served ${file.filename} of model '${modelName}' as bytes that are not an image.`);
            images.push({ bytes, contentType });
          }
          return { images, contentFilter: undefined };
        },
      },
      request.signal,
    );
  }
}
