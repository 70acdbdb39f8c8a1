import type { ChatMessage, ChatRequest, ContentPart } from '../../core/chat/chat-types.ts';
import type { GuardedFetcher } from '../../tools/fetch/guarded-fetcher.ts';
import { toAbortSignal } from '../../core/chat/abort-source.ts';

const mediaFetchTimeoutMs = 20_000;

/** Whether some message has a media part given as an http(s) URL (inlineRemoteMedia has work to do). */
export function hasRemoteMedia(request: ChatRequest): boolean {
  return request.messages.some(messageHasRemoteMedia);
}

/**
 * Media parts given as http(s) URLs are fetched here, through the platform's SSRF guard, and sent
 * to the engine as data URLs: an engine inside the operator's network must never fetch a URL a
 * client chose. Messages without remote media pass through untouched.
 */
export async function inlineRemoteMedia(request: ChatRequest, fetcher: GuardedFetcher): Promise<ChatRequest> {
  const messages = await Promise.all(
    request.messages.map(async (message): Promise<ChatMessage> => {
      if (!messageHasRemoteMedia(message) || !Array.isArray(message.content)) return message;
      const content = await Promise.all(message.content.map((part) => inlinePart(part, fetcher, toAbortSignal(request.signal))));
      return { ...message, content };
    }),
  );
  return { ...request, messages };
}

function messageHasRemoteMedia(message: ChatMessage): boolean {
  return Array.isArray(message.content) && message.content.some((part) => part.type !== 'text' && /^https?:/i.test(part.url));
}

async function inlinePart(part: ContentPart, fetcher: GuardedFetcher, signal: AbortSignal): Promise<ContentPart> {
  if (part.type === 'text' || !/^https?:/i.test(part.url)) return part;
  const fetched = await fetcher.fetch(part.url, { timeoutMs: mediaFetchTimeoutMs, signal });
  const mediaType = fetched.contentType.mediaType || 'application/octet-stream';
  return { type: part.type, url: `data:${mediaType};base64,${fetched.body.toString('base64')}` };
}
