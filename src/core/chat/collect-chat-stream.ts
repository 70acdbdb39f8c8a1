import type { ChatPartBatch, ChatStreamPart } from './chat-stream-part.ts';
import type { ChatResult, ChatUsage, FinishReason, ToolCall } from './chat-types.ts';

/**
 * A whole answer from the parts of a streamed one: for engines asked to stream although the client
 * waits for the whole answer (an engine that notices a departed client only while it streams).
 * Tool calls are assembled by index in the order they started; a call without arguments gets `{}`,
 * as a non-streamed answer gives it. Parts are added as they come, with no promise between them.
 */
export class ChatAnswerCollector {
  #content = '';
  #reasoningContent = '';
  readonly #toolCalls: { id: string; name: string; arguments: string }[] = [];
  #finish: { reason: FinishReason; usage: ChatUsage } | undefined;

  add(part: ChatStreamPart): void {
    switch (part.type) {
      case 'text':
        this.#content += part.text;
        break;
      case 'reasoning':
        this.#reasoningContent += part.text;
        break;
      case 'tool-call-start':
        this.#toolCalls[part.index] = { id: part.id, name: part.name, arguments: '' };
        break;
      case 'tool-call-delta': {
        const call = this.#toolCalls[part.index];
        if (call !== undefined) call.arguments += part.argumentsDelta;
        break;
      }
      case 'finish':
        this.#finish = { reason: part.reason, usage: part.usage };
        break;
    }
  }

  /** The answer; throws when no finish part came. */
  result(): ChatResult {
    const finish = this.#finish;
    if (finish === undefined) throw new Error('the stream ended without its finish part');
    const calls: ToolCall[] = this.#toolCalls.filter((call) => call !== undefined).map((call) => ({ ...call, arguments: call.arguments || '{}' }));
    return { content: this.#content, reasoningContent: this.#reasoningContent, toolCalls: calls, finishReason: finish.reason, usage: finish.usage };
  }
}

/** The whole answer of a stream of parts (ChatAnswerCollector). */
export async function collectChatStream(batches: AsyncIterable<ChatPartBatch>): Promise<ChatResult> {
  const collector = new ChatAnswerCollector();
  for await (const parts of batches) for (const part of parts) collector.add(part);
  return collector.result();
}
