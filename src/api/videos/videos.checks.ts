import { ApiError, invalidField } from '../../core/errors/api-error.ts';
import { parseInlineData } from '../../core/media/inline-data.ts';
import { maxVideoImageBytes, type VideoImage } from '../../core/media/video-input-limits.ts';
import type { VideoGenerationRequest, VideoImageInput } from './videos.schema.ts';

const sourceForms = "an http(s) URL, a 'data:image/png|jpeg|jpg;base64,' URL, or base64 image data";

/** The video rules JSON Schema cannot state: prompt or image required, image forms, frame mode. */
export function checkVideoRequest(body: VideoGenerationRequest): void {
  const hasPrompt = body.prompt !== undefined && body.prompt.trim() !== '';
  if (!hasPrompt && body.image_url === undefined) {
    throw new ApiError('1213', "Missing required parameter: at least one of 'prompt' or 'image_url' is required.");
  }
  if (body.image_url === undefined) return;
  const images = listVideoImages(body.image_url);
  for (const image of images) checkImageSource(image);
  if (images.length === 2 && body.quality === 'quality') {
    throw invalidField('quality', "must be 'speed' when image_url holds two images (first and last frame)");
  }
}

/** The images of `image_url` in order (first frame, last frame), whichever form they came in. */
export function listVideoImages(input: VideoImageInput): VideoImage[] {
  if (typeof input === 'string') return [{ field: 'image_url', source: input }];
  if (!Array.isArray(input)) return [{ field: 'image_url.url', source: input.url }];
  return input.map((item, index) =>
    typeof item === 'string' ? { field: `image_url[${index}]`, source: item } : { field: `image_url[${index}].url`, source: item.url },
  );
}

/** An http(s) URL, or inline base64 (data URL or bare) of a png/jpeg image of at most 5 MiB. */
function checkImageSource(image: VideoImage): void {
  const { field, source } = image;
  if (/^https?:\/\//i.test(source)) {
    if (!URL.canParse(source)) throw invalidField(field, 'is not a valid URL');
    return;
  }
  const inline = parseInlineData(source);
  if (/^data:/i.test(source) && !/^image\/(png|jpeg|jpg)$/.test(inline?.mediaType ?? '')) {
    const mediaType = /^data:([^;,]*)/i.exec(source)?.[1] || 'no media type';
    throw invalidField(field, `must be a png or jpeg image as 'data:image/png|jpeg|jpg;base64,...', not ${mediaType}`);
  }
  if (inline === undefined) throw invalidField(field, `must be ${sourceForms}`);
  if (inline.decodedBytes > maxVideoImageBytes) {
    throw invalidField(field, `the image is ${inline.decodedBytes} bytes; at most ${maxVideoImageBytes} bytes (5 MB) are allowed`);
  }
}
