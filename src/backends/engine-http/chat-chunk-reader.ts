import type { ChatStreamPart } from '../../core/chat/chat-stream-part.ts';
import type { ChatUsage } from '../../core/chat/chat-types.ts';
import { ThinkTagSplitter } from '../../core/chat/think-tag-splitter.ts';
import { argumentsText, asArray, asRecord, asString, finishReasonOf, newToolCallId, pathOf, readUsage, reasoningOf, type WireRecord } from './wire-reading.ts';

interface ToolCallSlot {
  /** The index the platform's stream uses: calls numbered in the order they started. */
  index: number | undefined;
  id: string | undefined;
  /** Fragments that came before the call's name (an engine that names it late). */
  pendingArguments: string;
}

/**
 * Turns the chunks of an OpenAI-style chat stream into ChatStreamParts, one chunk at a time:
 * reasoning and content deltas (with `<think>` blocks taken out of content), tool calls as a start
 * followed by argument fragments, and the finish reason and usage, which may come in separate
 * chunks (vLLM sends usage last, with no choices).
 */
export class ChatChunkReader {
  readonly #splitter = new ThinkTagSplitter();
  readonly #toolCalls = new Map<number, ToolCallSlot>();
  #lastToolIndex = 0;
  #startedCalls = 0;
  #finishReason: string | undefined;
  #usage: ChatUsage | undefined;

  /** Whether the engine said why it finished (a stream that ends before that was cut). */
  get finished(): boolean {
    return this.#finishReason !== undefined;
  }

  /** The last usage the engine sent so far (it may send none, or one per chunk); for a stream that breaks. */
  get usageSoFar(): ChatUsage | undefined {
    return this.#usage;
  }

  read(chunk: WireRecord): ChatStreamPart[] {
    const parts: ChatStreamPart[] = [];
    this.readInto(chunk, parts);
    return parts;
  }

  /** Appends the chunk's parts to `parts` (a batch of several chunks' parts). */
  readInto(chunk: WireRecord, parts: ChatStreamPart[]): void {
    if (chunk['usage'] !== undefined && chunk['usage'] !== null) this.#usage = readUsage(chunk['usage']);
    const choice = asRecord(asArray(chunk['choices'])[0]);
    if (choice === undefined) return;
    const delta = asRecord(choice['delta']);
    const reasoning = reasoningOf(delta);
    if (reasoning !== '') parts.push({ type: 'reasoning', text: reasoning });
    const content = asString(delta?.['content']);
    if (content !== undefined && content !== '') for (const piece of this.#splitter.push(content)) parts.push(piece);
    for (const call of asArray(delta?.['tool_calls'])) for (const part of this.#readToolCall(asRecord(call))) parts.push(part);
    const finishReason = asString(choice['finish_reason']);
    if (finishReason !== undefined) this.#finishReason = finishReason;
  }

  /** The held-back text and the closing part; call once, after the last chunk. */
  end(): ChatStreamPart[] {
    return [
      ...this.#splitter.flush(),
      {
        type: 'finish',
        reason: finishReasonOf(this.#finishReason, this.#startedCalls > 0),
        usage: this.#usage ?? { promptTokens: 0, completionTokens: 0, cachedTokens: 0 },
      },
    ];
  }

  #readToolCall(call: WireRecord | undefined): ChatStreamPart[] {
    const name = asString(pathOf(call, 'function', 'name'));
    const id = asString(call?.['id']);
    const engineIndex = typeof call?.['index'] === 'number' ? call['index'] : this.#unnumberedIndex(id, name);
    this.#lastToolIndex = engineIndex;
    let slot = this.#toolCalls.get(engineIndex);
    if (slot === undefined) {
      slot = { index: undefined, id: undefined, pendingArguments: '' };
      this.#toolCalls.set(engineIndex, slot);
    }
    const parts: ChatStreamPart[] = [];
    let fragment = argumentsText(pathOf(call, 'function', 'arguments'));
    if (slot.index === undefined) {
      slot.id ??= id || undefined;
      if (name === undefined || name === '') {
        slot.pendingArguments += fragment;
        return parts;
      }
      slot.index = this.#startedCalls;
      this.#startedCalls += 1;
      parts.push({ type: 'tool-call-start', index: slot.index, id: slot.id ?? newToolCallId(), name });
      fragment = slot.pendingArguments + fragment;
      slot.pendingArguments = '';
    }
    if (fragment !== '') parts.push({ type: 'tool-call-delta', index: slot.index, argumentsDelta: fragment });
    return parts;
  }

  /** For an engine that numbers no calls: a known id continues its call, a new name starts the next one. */
  #unnumberedIndex(id: string | undefined, name: string | undefined): number {
    for (const [index, slot] of this.#toolCalls) if (id !== undefined && id !== '' && slot.id === id) return index;
    if (name === undefined || name === '') return this.#lastToolIndex;
    let index = this.#toolCalls.size;
    while (this.#toolCalls.has(index)) index += 1;
    return index;
  }
}
