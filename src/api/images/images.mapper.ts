import type { ContentFilterVerdict } from '../../core/media/image-generator.ts';
import type { ImageJob } from '../../core/media/generate-images.ts';
import { imageSizeRule } from './image-size.checks.ts';
import type { AsyncImageGenerationRequest, ImageGenerationRequest, ImageGenerationResponse } from './images.schema.ts';

/**
 * The content_filter sent when the engine has no safety classifier of its own (every engine but
 * the upstream platform): the platform's answers always carry the field (Python and Java clients
 * read it), and level 3, "least severe", is what a result that nothing flagged is.
 */
const unfilteredVerdict: readonly ContentFilterVerdict[] = [{ role: 'assistant', level: 3 }];

/** The request with the platform's documented defaults: quality hd for glm-image, standard otherwise; the model's default size. */
export function toImageJob(body: ImageGenerationRequest | AsyncImageGenerationRequest): ImageJob {
  const size = body.size ?? imageSizeRule(body.model)?.defaultSize ?? '1024x1024';
  const [width = 0, height = 0] = size.split('x').map(Number);
  return {
    model: body.model,
    prompt: body.prompt,
    width,
    height,
    quality: body.quality ?? (body.model === 'glm-image' ? 'hd' : 'standard'),
  };
}

export function toImageResponse(urls: readonly string[], contentFilter: readonly ContentFilterVerdict[] | undefined): ImageGenerationResponse {
  return {
    created: Math.floor(Date.now() / 1000),
    data: urls.map((url) => ({ url })),
    content_filter: (contentFilter ?? unfilteredVerdict).map((verdict) => ({ role: verdict.role, level: verdict.level })),
  };
}
