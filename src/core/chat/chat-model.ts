import type { ChatPartBatch } from './chat-stream-part.ts';
import type { ChatRequest, ChatResult } from './chat-types.ts';

/**
 * The chat capability. Engines throw ApiError for failures the client should see with a status
 * (engine unreachable, prompt too long, engine refused the input); a stream that breaks after
 * its first part throws EngineConnectionError so the answer can end with `network_error`. A
 * stream yields its parts in batches (ChatPartBatch), in order, the last batch ending with the
 * `finish` part.
 */
export interface ChatModel {
  generate(request: ChatRequest): Promise<ChatResult>;
  stream(request: ChatRequest): AsyncIterable<ChatPartBatch>;
}

/** Images and videos as an engine counted them into a prompt; a kind it does not report apart is undefined. */
export interface EngineMediaCount {
  readonly image: number | undefined;
  readonly video: number | undefined;
}

/**
 * Counts the prompt tokens of messages + tools as the engine would render them. `thinking` is the
 * chat call's switch (templates render an open or a closed think block); without it the engine's
 * own default is counted. Images and videos: a counter whose engine counts them into the total
 * as its chat call does calls `onMediaCounted` (with the engine's split where it reports one);
 * one that does not call it counts the text only, and the caller adds the media by the vision
 * model's rule (core/media/media-token-count.ts).
 */
export interface TokenCounter {
  countPromptTokens(request: {
    readonly messages: ChatRequest['messages'];
    readonly tools: ChatRequest['tools'];
    readonly thinking?: ChatRequest['thinking'];
    readonly signal: AbortSignal;
    readonly onMediaCounted?: (counted: EngineMediaCount) => void;
  }): Promise<number>;
}
