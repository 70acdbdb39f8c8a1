import { ApiError } from '../errors/api-error.ts';
import type { TokenCounter } from './chat-model.ts';
import type { ChatMessage } from './chat-types.ts';

/**
 * Refuses media parts for an engine that takes text only, naming the first part that cannot be
 * sent, so the client learns which message to change instead of getting an engine's template error.
 */
export function assertTextOnly(messages: readonly ChatMessage[], model: string): void {
  messages.forEach((message, messageIndex) => {
    if (message.content === null || typeof message.content === 'string') return;
    const partIndex = message.content.findIndex((part) => part.type !== 'text');
    const part = message.content[partIndex];
    if (part === undefined) return;
    throw new ApiError(
      '1214',
      `Invalid parameter 'messages[${messageIndex}].content[${partIndex}]': model '${model}' runs on an engine that takes text only, ` +
        `so a '${part.type}' part cannot be sent. Send text content, or use a vision model.`,
    );
  });
}

/** The counter, refusing media parts first as the chat of a text-only model does. */
export function textOnlyCounter(counter: TokenCounter, model: string): TokenCounter {
  return {
    countPromptTokens: (request) => {
      assertTextOnly(request.messages, model);
      return counter.countPromptTokens(request);
    },
  };
}

/** The text of a message's content; text parts are joined by newlines, as vision-less chat templates expect one string. */
export function textContent(content: ChatMessage['content']): string | null {
  if (content === null || typeof content === 'string') return content;
  return content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}
