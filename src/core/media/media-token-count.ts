import type { ChatMessage, MediaPart } from '../chat/chat-types.ts';
import { ApiError, invalidField } from '../errors/api-error.ts';
import { parseInlineData } from './inline-data.ts';
import { MediaReaderBusyError, MediaReaderMissingError, type VisualMedia, type VisualMediaReader } from './visual-media-reader.ts';
import { aspectRatioAllowed, imageTokens, maxAspectRatio, videoTokens } from './vision-token-rule.ts';

export interface MediaTokens {
  readonly image: number;
  readonly video: number;
}

/** Which of the two kinds to count: the other may come from the engine already. */
export interface MediaKinds {
  readonly image: boolean;
  readonly video: boolean;
}

/** Whether some message has an image or a video part. */
export function mediaKindsOf(messages: readonly ChatMessage[]): MediaKinds {
  const parts = messages.flatMap((message) => (Array.isArray(message.content) ? message.content : []));
  return { image: parts.some((part) => part.type === 'image_url'), video: parts.some((part) => part.type === 'video_url') };
}

/**
 * The prompt tokens of the messages' images and videos by the vision model's rule
 * (vision-token-rule.ts), from each one's own size and length as `reader` reads them (the
 * platform's: PNG and JPEG sizes from their headers, other images and every video through ffprobe). The media must be inline by now (the
 * route fetched URLs through the guard, and the body and each part were capped on the way in).
 * A part that is no readable picture is refused with 1214 naming its field. `caller` (the API key)
 * takes its turn for the reader among the callers waiting.
 */
export async function countMediaTokens(
  reader: VisualMediaReader,
  messages: readonly ChatMessage[],
  kinds: MediaKinds,
  caller: string,
  signal: AbortSignal,
): Promise<MediaTokens> {
  let image = 0;
  let video = 0;
  for (const [messageIndex, message] of messages.entries()) {
    if (!Array.isArray(message.content)) continue;
    for (const [partIndex, part] of message.content.entries()) {
      if (part.type === 'image_url' && kinds.image)
        image += await imagePartTokens(reader, part, `messages[${messageIndex}].content[${partIndex}].image_url`, caller, signal);
      if (part.type === 'video_url' && kinds.video)
        video += await videoPartTokens(reader, part, `messages[${messageIndex}].content[${partIndex}].video_url`, caller, signal);
    }
  }
  return { image, video };
}

async function imagePartTokens(reader: VisualMediaReader, part: MediaPart, field: string, caller: string, signal: AbortSignal): Promise<number> {
  const bytes = inlineBytes(part, field);
  const size = reader.imageSize(bytes) ?? (await probed(reader, bytes, field, 'an image', caller, signal));
  checkProportions(size.width, size.height, field);
  return imageTokens(size.width, size.height);
}

async function videoPartTokens(reader: VisualMediaReader, part: MediaPart, field: string, caller: string, signal: AbortSignal): Promise<number> {
  const video = await probed(reader, inlineBytes(part, field), field, 'a video', caller, signal);
  if (video.durationSeconds === 0 && video.frameCount === undefined) throw invalidField(field, 'is a still picture, not a video');
  checkProportions(video.width, video.height, field);
  return videoTokens(video);
}

function inlineBytes(part: MediaPart, field: string): Buffer {
  const inline = parseInlineData(part.url);
  if (inline === undefined) throw invalidField(field, 'must be inline base64 media by the time it is counted');
  return Buffer.from(inline.base64, 'base64');
}

async function probed(reader: VisualMediaReader, bytes: Buffer, field: string, kind: string, caller: string, signal: AbortSignal): Promise<VisualMedia> {
  try {
    return await reader.probe(bytes, caller, signal);
  } catch (error) {
    if (signal.aborted || error instanceof MediaReaderMissingError) throw error;
    if (error instanceof MediaReaderBusyError)
      throw new ApiError(
        '1305',
        `The server is reading too many pictures and videos at once to read ${field} now (${error.message}); send the request again shortly.`,
      );
    throw invalidField(field, `is not ${kind} the platform can read: ${(error as Error).message}`);
  }
}

function checkProportions(width: number, height: number, field: string): void {
  if (!aspectRatioAllowed(width, height)) {
    throw invalidField(field, `is ${width}x${height} pixels; the vision model takes pictures at most ${maxAspectRatio} times longer than wide`);
  }
}
