import type { ChatMessage, ChatRequest, ContentPart } from '../../core/chat/chat-types.ts';
import type { GuardedFetcher } from '../../tools/fetch/guarded-fetcher.ts';
import { toAbortSignal } from '../../core/chat/abort-source.ts';

const mediaFetchTimeoutMs = 20_000;

/**
 * Media parts given as http(s) URLs are fetched here, through the platform's SSRF guard, and sent
 * to the engine as data URLs: an engine inside the operator's network must never fetch a URL a
 * client chose. Requests without remote media pass through untouched.
 */
export async function inlineRemoteMedia(request: ChatRequest, fetcher: GuardedFetcher): Promise<ChatRequest> {
  if (!request.messages.some(hasRemoteMedia)) return request;
  const messages = await Promise.all(
    request.messages.map(async (message): Promise<ChatMessage> => {
      if (!hasRemoteMedia(message) || !Array.isArray(message.content)) return message;
      const content = await Promise.all(message.content.map((part) => inlinePart(part, fetcher, toAbortSignal(request.signal))));
      return { ...message, content };
    }),
  );
  return { ...request, messages };
}

function hasRemoteMedia(message: ChatMessage): boolean {
  return Array.isArray(message.content) && message.content.some((part) => part.type !== 'text' && /^https?:/i.test(part.url));
}

async function inlinePart(part: ContentPart, fetcher: GuardedFetcher, signal: AbortSignal): Promise<ContentPart> {
  if (part.type === 'text' || !/^https?:/i.test(part.url)) return part;
  const fetched = await fetcher.fetch(part.url, { timeoutMs: mediaFetchTimeoutMs, signal });
  const mediaType = fetched.contentType.mediaType || 'application/octet-stream';
  return { type: part.type, url: `data:${mediaType};base64,${fetched.body.toString('base64')}` };
}
