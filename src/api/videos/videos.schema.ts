import { maxVideoPromptLength } from '../../core/media/video-input-limits.ts';
import { Type, type Static } from '@sinclair/typebox';
import { ModelName, RequestId, StringEnum, UserId } from '../shared/common.schema.ts';

const videoQualities = ['speed', 'quality'] as const;

const videoSizes = ['1280x720', '720x1280', '1024x1024', '1920x1080', '1080x1920', '2048x1080', '3840x2160'] as const;

/** At most two images: the first frame and the last frame (docs/wire.md §1.5). */
const maxVideoImages = 2;

/** An integer enumeration as a JSON-schema `enum`, so Ajv names the allowed values. */
function IntegerEnum<const Values extends readonly number[]>(values: Values, description: string) {
  return Type.Unsafe<Values[number]>({ type: 'integer', enum: [...values], description });
}

const imageSourceDescription = 'An http(s) URL, a data:image/png|jpeg|jpg;base64, URL, or bare base64 of a .png/.jpeg/.jpg image of at most 5 MB.';

/** One input image as a string, or wrapped as `{url}` (docs/wire.md §1.5: "or an object"). */
const VideoImageString = Type.String({ minLength: 1, description: imageSourceDescription });
const VideoImageObject = Type.Object({ url: VideoImageString });

/**
 * POST /paas/v4/videos/generations (`duration`: docs/wire.md §1.5). The Python
 * SDK sends every unset field as null, and also `style`, `aspect_ratio`, `off_peak`,
 * `movement_amplitude`, `watermark_enabled` and `sensitive_word_check`; those are accepted and ignored.
 */
export const VideoGenerationRequest = Type.Object({
  model: ModelName('cogvideox-3, or a video model of the config catalog.'),
  prompt: Type.Optional(
    Type.String({
      maxLength: maxVideoPromptLength,
      description: 'Text description, at most 512 characters. At least one of prompt or image_url is required.',
    }),
  ),
  quality: Type.Optional(StringEnum(videoQualities, { description: 'speed (default; faster) or quality (higher quality).' })),
  with_audio: Type.Optional(Type.Boolean({ description: 'Generate AI sound effects; default false.' })),
  image_url: Type.Optional(
    Type.Union([VideoImageString, VideoImageObject, Type.Array(Type.Union([VideoImageString, VideoImageObject]), { minItems: 1, maxItems: maxVideoImages })], {
      description: 'Image basis: one image, or two (first frame and last frame; that mode supports only quality speed). ' + imageSourceDescription,
    }),
  ),
  size: Type.Optional(
    StringEnum(videoSizes, {
      description: 'When omitted, the short side is 1080 and the long side follows the input image ratio (up to 4K).',
    }),
  ),
  fps: Type.Optional(IntegerEnum([30, 60], 'Frames per second: 30 (default) or 60.')),
  duration: Type.Optional(IntegerEnum([5, 10], 'Seconds: 5 (default) or 10.')),
  request_id: Type.Optional(RequestId),
  user_id: Type.Optional(UserId),
});

export type VideoGenerationRequest = Static<typeof VideoGenerationRequest>;

export type VideoImageInput = NonNullable<VideoGenerationRequest['image_url']>;
