import { Type, type Static } from '@sinclair/typebox';
import { ContentFilterVerdicts, ModelName, RequestId, StringEnum, UserId } from '../shared/common.schema.ts';

const imageQualities = ['hd', 'standard'] as const;

const ImagePrompt = Type.String({ minLength: 1, description: 'Text description of the image.' });

/** WIDTHxHEIGHT; the per-model rules are `checkImageSize` (image-size.checks.ts). */
const ImageSize = (description: string) => Type.String({ description: `WIDTHxHEIGHT in pixels. ${description}` });

/**
 * POST /paas/v4/images/generations. The Python SDK also sends `n`, `response_format`,
 * `style`, `user`, `sensitive_word_check` and `watermark_enabled` (docs/wire.md §8.6); like every
 * unknown field they are accepted and ignored.
 */
export const ImageGenerationRequest = Type.Object({
  model: ModelName('glm-image or cogview-4-250304, or an image model of the config catalog.'),
  prompt: ImagePrompt,
  quality: Type.Optional(
    StringEnum(imageQualities, {
      description: 'hd (richer detail, about 20 s) or standard (about 5-10 s). Default hd for glm-image, standard for other models.',
    }),
  ),
  size: Type.Optional(
    ImageSize(
      'glm-image: 1280x1280 (default), 1568x1056, 1056x1568, 1472x1088, 1088x1472, 1728x960, 960x1728, or custom with each ' +
        'side 1024-2048 divisible by 32 and at most 2^22 pixels. Other models: 1024x1024 (default), 768x1344, 864x1152, ' +
        '1344x768, 1152x864, 1440x720, 720x1440, or custom with each side 512-2048 divisible by 16 and at most 2^21 pixels.',
    ),
  ),
  request_id: Type.Optional(RequestId),
  user_id: Type.Optional(UserId),
});

export type ImageGenerationRequest = Static<typeof ImageGenerationRequest>;

/** POST /paas/v4/async/images/generations: glm-image only, hd only, as on the platform. */
export const AsyncImageGenerationRequest = Type.Object({
  model: ModelName('glm-image (the only model of asynchronous image generation).'),
  prompt: ImagePrompt,
  quality: Type.Optional(StringEnum(['hd'], { description: 'Only hd.' })),
  size: Type.Optional(
    ImageSize(
      '1280x1280 (default), 1568x1056, 1056x1568, 1472x1088, 1088x1472, 1728x960, 960x1728, or custom with each side ' +
        '1024-2048 divisible by 32 and at most 2^22 pixels.',
    ),
  ),
  request_id: Type.Optional(RequestId),
  user_id: Type.Optional(UserId),
});

export type AsyncImageGenerationRequest = Static<typeof AsyncImageGenerationRequest>;

/** Image result (docs/wire.md §8.4: `data[].url` is absolute). */
export const ImageGenerationResponse = Type.Object({
  created: Type.Integer({ description: 'Unix timestamp, seconds.' }),
  data: Type.Array(Type.Object({ url: Type.String({ description: 'Absolute URL of the generated image.' }) })),
  content_filter: Type.Optional(
    ContentFilterVerdicts(
      "Content-safety verdicts: the engine's own when it has a classifier (the upstream platform); otherwise " +
        "[{role: 'assistant', level: 3}], since nothing flagged the result.",
    ),
  ),
});

export type ImageGenerationResponse = Static<typeof ImageGenerationResponse>;
