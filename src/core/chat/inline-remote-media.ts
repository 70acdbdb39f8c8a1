import { ApiError } from '../errors/api-error.ts';
import type { ChatMessage, ChatRequest, ContentPart } from './chat-types.ts';

const mediaFetchTimeoutMs = 20_000;

/**
 * Fetches media a client gave by URL, through the platform's SSRF guard and under its size cap: the
 * composition root builds one (tools/fetch/chat-media-fetcher.ts) and hands it to whatever inlines
 * media. A refused URL is an ApiError about the parameter 'url'.
 */
export interface MediaFetcher {
  fetch(url: string, options: { readonly timeoutMs: number; readonly signal: AbortSignal }): Promise<FetchedMedia>;
}

interface FetchedMedia {
  readonly status: number;
  readonly contentType: { readonly mediaType: string };
  readonly body: Buffer;
}

/** Whether some message has a media part given as an http(s) URL (inlineRemoteMedia has work to do). */
export function hasRemoteMedia(request: Pick<ChatRequest, 'messages'>): boolean {
  return request.messages.some(messageHasRemoteMedia);
}

/**
 * Media parts given as http(s) URLs are fetched here, through the platform's SSRF guard, and sent
 * to the engine as data URLs: an engine inside the operator's network must never fetch a URL a
 * client chose, whatever the engine (the upstream cloud included: the guard's answer must not
 * depend on which engine serves the model). Messages without remote media pass through untouched.
 * The URLs were already checked by `checkMediaUrl`; a refused fetch names the part's field.
 */
export async function inlineRemoteMedia(request: ChatRequest, fetcher: MediaFetcher): Promise<ChatRequest> {
  return { ...request, messages: await inlineRemoteMediaOf(request.messages, fetcher, request.signal) };
}

/** inlineRemoteMedia for a message list alone (the tokenizer, whose engine would fetch them too). */
export async function inlineRemoteMediaOf(messages: readonly ChatMessage[], fetcher: MediaFetcher, signal: AbortSignal): Promise<ChatMessage[]> {
  return Promise.all(
    messages.map(async (message, index): Promise<ChatMessage> => {
      if (!messageHasRemoteMedia(message) || !Array.isArray(message.content)) return message;
      const content = await Promise.all(
        message.content.map((part: ContentPart, partIndex) => inlinePart(part, `messages[${index}].content[${partIndex}].${part.type}.url`, fetcher, signal)),
      );
      return { ...message, content };
    }),
  );
}

function messageHasRemoteMedia(message: ChatMessage): boolean {
  return Array.isArray(message.content) && message.content.some((part) => part.type !== 'text' && /^https?:/i.test(part.url));
}

async function inlinePart(part: ContentPart, field: string, fetcher: MediaFetcher, signal: AbortSignal): Promise<ContentPart> {
  if (part.type === 'text' || !/^https?:/i.test(part.url)) return part;
  let fetched;
  try {
    fetched = await fetcher.fetch(part.url, { timeoutMs: mediaFetchTimeoutMs, signal });
  } catch (error) {
    // The fetcher speaks of 'url'; the client sent this part's field.
    if (error instanceof ApiError) throw new ApiError(error.code, error.message.replace(/^Invalid parameter 'url'/, `Invalid parameter '${field}'`));
    throw error;
  }
  // An error page is not the media the client meant; the model must not be shown it as such.
  if (fetched.status < 200 || fetched.status > 299)
    throw new ApiError('1214', `Invalid parameter '${field}': fetching ${part.url} answered HTTP ${fetched.status}.`);
  const mediaType = fetched.contentType.mediaType || 'application/octet-stream';
  return { type: part.type, url: `data:${mediaType};base64,${fetched.body.toString('base64')}` };
}
