import type { ChatUsage, FinishReason } from './chat-types.ts';

/**
 * What an engine's stream yields, engine-neutral. Tool calls arrive as a start (id and name)
 * followed by argument fragments, per index; the HTTP layer decides whether to relay fragments
 * (tool_stream) or whole calls. The last part is always `finish`.
 */
export type ChatStreamPart =
  | { readonly type: 'reasoning'; readonly text: string }
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool-call-start'; readonly index: number; readonly id: string; readonly name: string }
  | { readonly type: 'tool-call-delta'; readonly index: number; readonly argumentsDelta: string }
  | { readonly type: 'finish'; readonly reason: FinishReason; readonly usage: ChatUsage };

/**
 * Parts that came together (one read of an engine's connection often holds several events): a
 * stream hands them on as one array, so each layer between the engine and the client waits once
 * per batch rather than once per part. Never empty.
 */
export type ChatPartBatch = readonly ChatStreamPart[];
