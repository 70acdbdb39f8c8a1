import { invalidField } from '../../core/errors/api-error.ts';
import type { VideoImage } from '../../core/media/video-input-limits.ts';
import type { AgentMessage } from '../agent.ts';

/** What the effects-video agent takes from the conversation: the photo to animate and the user's words. */
export interface EffectVideoInput {
  /** The first image of the user's messages, with the path that names it in errors. */
  readonly image: VideoImage;
  /** The user's text, joined; undefined when they wrote none. */
  readonly text: string | undefined;
}

/** Content that is itself an image: an http(s) URL or an image data URL (as POST /v1/agents accepts it). */
const imageContent = /^(https?:\/\/|data:image\/)\S+$/i;

/**
 * The photo is the first `image_url` part of a user message, or a user message whose whole
 * content is an image URL; every other piece of user text is the user's wish for the effect.
 * Assistant messages (earlier answers) are not the user's input.
 */
export function readEffectVideoInput(messages: readonly AgentMessage[]): EffectVideoInput {
  let image: VideoImage | undefined;
  const texts: string[] = [];
  messages.forEach((message, index) => {
    if (message.role !== 'user') return;
    if (typeof message.content === 'string') {
      const content = message.content.trim();
      if (imageContent.test(content)) image ??= { field: `messages[${index}].content`, source: content };
      else if (content !== '') texts.push(content);
      return;
    }
    message.content.forEach((part, partIndex) => {
      if (part.type === 'image_url' && part.url !== undefined) {
        image ??= { field: `messages[${index}].content[${partIndex}].image_url`, source: part.url.trim() };
      } else if (part.type === 'text' && part.text !== undefined && part.text.trim() !== '') {
        texts.push(part.text.trim());
      }
    });
  });
  if (image === undefined) {
    throw invalidField('messages', 'must include a user message with an image (an image_url part or an image URL) for vidu_template_agent');
  }
  return { image, text: texts.length === 0 ? undefined : texts.join('\n') };
}
