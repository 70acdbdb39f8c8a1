import { invalidField } from '../../core/errors/api-error.ts';
import { checkMessages, checkToolParameters } from '../shared/message.checks.ts';
import type { TokenizerRequest } from './tokenizer.schema.ts';

/**
 * Pictures and videos one tokenizer call may count: each one whose size the headers do not state
 * costs an ffprobe process, and the probes are shared by every caller of the server.
 */
export const maxTokenizerImages = 32;
const maxTokenizerVideos = 4;

/** The tokenizer rules JSON Schema cannot state: the make-up of the message list, the tools' parameters, the media per call. */
export function checkTokenizerRequest(body: TokenizerRequest): void {
  checkMessages(body.messages);
  if (body.tools !== undefined) checkToolParameters(body.tools);
  checkMediaCount(body.messages);
}

/** Over a cap, 1214 names the first part past it. */
function checkMediaCount(messages: TokenizerRequest['messages']): void {
  let images = 0;
  let videos = 0;
  for (const [messageIndex, message] of messages.entries()) {
    if (!Array.isArray(message.content)) continue;
    for (const [partIndex, part] of message.content.entries()) {
      const field = `messages[${messageIndex}].content[${partIndex}].${part.type}`;
      if (part.type === 'image_url' && ++images > maxTokenizerImages) {
        throw invalidField(
          field,
          `is image ${images} of this call; a tokenizer call counts at most ${maxTokenizerImages} images: count the rest in another call`,
        );
      }
      if (part.type === 'video_url' && ++videos > maxTokenizerVideos) {
        throw invalidField(
          field,
          `is video ${videos} of this call; a tokenizer call counts at most ${maxTokenizerVideos} videos: count the rest in another call`,
        );
      }
    }
  }
}
