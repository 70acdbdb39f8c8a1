import { invalidField } from '../../core/errors/api-error.ts';
import { quoteClientValue } from '../../core/errors/quote-client-value.ts';
import { checkImageSize, glmImageSizeRule, imageSizeRule } from './image-size.checks.ts';
import type { AsyncImageGenerationRequest, ImageGenerationRequest } from './images.schema.ts';

/** The image rules JSON Schema cannot state: a non-blank prompt and the per-model size rules. */
export function checkImageRequest(body: ImageGenerationRequest): void {
  checkPrompt(body.prompt);
  if (body.size !== undefined) checkImageSize(body.size, imageSizeRule(body.model));
}

/** Asynchronous generation serves glm-image only (as on the platform), so its size rules are glm-image's. */
export function checkAsyncImageRequest(body: AsyncImageGenerationRequest): void {
  if (body.model !== 'glm-image') {
    throw invalidField('model', `only glm-image is supported for asynchronous image generation, not '${quoteClientValue(body.model)}'`);
  }
  checkPrompt(body.prompt);
  if (body.size !== undefined) checkImageSize(body.size, glmImageSizeRule);
}

function checkPrompt(prompt: string): void {
  if (prompt.trim() === '') throw invalidField('prompt', 'must not be blank');
}
