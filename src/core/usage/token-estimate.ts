import type { ChatRequest } from '../chat/chat-types.ts';

/**
 * Token counts for when no tokenizer can be asked: a stream whose engine died before it reported
 * usage. The rule is the common rough one, 4 bytes of UTF-8 per token: about 4 characters of
 * English or code per token, about 0.75 tokens per CJK character. It is an estimate, used only
 * where the alternative is billing 0 for work that was delivered.
 */
export const estimatedBytesPerToken = 4;

/** What chat templates add around each message (role markers, separators): a few tokens. */
const estimatedTokensPerMessage = 4;

/** The estimated tokens of a text: ceil(UTF-8 bytes / 4). */
function estimateTextTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / estimatedBytesPerToken);
}

/**
 * The estimated prompt tokens of a chat call: the text of every message (content, reasoning kept
 * from earlier turns, tool calls and their results) and the tool definitions as JSON, plus a few
 * template tokens per message. Images, audio and other media are not counted: their cost depends
 * on the model's encoder, which only the engine knows.
 */
export function estimatePromptTokens(request: Pick<ChatRequest, 'messages' | 'tools'>): number {
  let tokens = request.tools.length === 0 ? 0 : estimateTextTokens(JSON.stringify(request.tools));
  for (const message of request.messages) {
    tokens += estimatedTokensPerMessage;
    if (typeof message.content === 'string') tokens += estimateTextTokens(message.content);
    else if (message.content !== null) for (const part of message.content) if (part.type === 'text') tokens += estimateTextTokens(part.text);
    if (message.reasoningContent !== undefined) tokens += estimateTextTokens(message.reasoningContent);
    for (const call of message.toolCalls ?? []) tokens += estimateTextTokens(call.name) + estimateTextTokens(call.arguments);
  }
  return tokens;
}
