import { ApiError, invalidField } from '../../core/errors/api-error.ts';
import type { GuardedFetcher } from '../fetch/guarded-fetcher.ts';
import { imageTypeOf } from './media-signature.ts';
import { parseInlineData } from '../../core/media/inline-data.ts';
import { maxVideoImageBytes, type VideoImage } from '../../core/media/video-input-limits.ts';

/** Fetching one input image should take seconds; a slow host is the client's problem, reported as such. */
const imageFetchTimeoutMs = 30_000;

export interface VideoInputImage {
  readonly bytes: Uint8Array;
  readonly contentType: 'image/png' | 'image/jpeg';
}

/**
 * The bytes of one input image, checked where it matters, on the bytes: a PNG or a JPEG by its
 * signature (whatever a data URL or a server claims) and at most 5 MB. An http(s) URL is fetched
 * through the SSRF guard, capped at 5 MB while it streams.
 */
export async function readVideoImage(image: VideoImage, fetcher: GuardedFetcher, signal: AbortSignal): Promise<VideoInputImage> {
  const bytes = /^https?:\/\//i.test(image.source) ? await fetchImage(image, fetcher, signal) : decodeInline(image);
  if (bytes.length > maxVideoImageBytes) {
    throw invalidField(image.field, `the image is ${bytes.length} bytes; at most ${maxVideoImageBytes} bytes (5 MB) are allowed`);
  }
  const type = imageTypeOf(bytes);
  if (type !== 'image/png' && type !== 'image/jpeg') {
    throw invalidField(
      image.field,
      `must be a PNG or JPEG image; its bytes are ${type === undefined ? 'not an image this server recognises' : `${type.slice('image/'.length).toUpperCase()}`}`,
    );
  }
  return { bytes, contentType: type };
}

function decodeInline(image: VideoImage): Uint8Array {
  const inline = parseInlineData(image.source);
  // videos.checks already refused what is not base64; this is its decoding (standard or URL-safe).
  if (inline === undefined) throw invalidField(image.field, 'is not valid base64 image data');
  return Buffer.from(inline.base64, 'base64');
}

async function fetchImage(image: VideoImage, fetcher: GuardedFetcher, signal: AbortSignal): Promise<Uint8Array> {
  let fetched;
  try {
    fetched = await fetcher.fetch(image.source, {
      timeoutMs: imageFetchTimeoutMs,
      signal,
      maxBytes: maxVideoImageBytes,
      headers: { accept: 'image/png,image/jpeg;q=0.9,*/*;q=0.5' },
    });
  } catch (error) {
    // The fetcher names the field `url`; here it is image_url (or image_url[1]).
    if (error instanceof ApiError) throw new ApiError(error.code, error.message.replace(/^Invalid parameter 'url'/, `Invalid parameter '${image.field}'`));
    throw error;
  }
  if (fetched.status < 200 || fetched.status > 299) {
    throw invalidField(image.field, `fetching ${image.source} answered HTTP ${fetched.status}`);
  }
  return fetched.body;
}
