import type { ChatPartBatch, ChatStreamPart } from '../../core/chat/chat-stream-part.ts';
import { DeliveredOutput } from '../../core/chat/cut-answer-usage.ts';
import type { ChatUsage } from '../../core/chat/chat-types.ts';
import { EngineConnectionError } from '../../core/chat/engine-errors.ts';
import type { SseWriter } from '../../http/sse-writer.ts';
import { toChunk, toFinalChunk, type ChatAnswerHeader, type WireDelta, type WireToolCallDelta } from './chat-response.mapper.ts';

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Relays an engine stream as platform chunks (docs/wire.md §3.2, §3.3). The first part is
 * awaited before any byte is sent, so an engine that fails at once gets a real HTTP status; after
 * that, a broken engine connection ends the answer with finish_reason `network_error` and the usage
 * of what was delivered (DeliveredOutput: the engine's last report, else counted without it, the
 * prompt by `promptTokensWithoutEngine`), and any other failure travels as an in-band
 * `{"error":…}` frame, then `[DONE]`. Tool calls are relayed as fragments with `tool_stream`,
 * otherwise each call goes out whole, just before the last chunk (a call held back when the
 * connection breaks was not delivered, and is not counted). Resolves with the usage to record: a
 * completed answer's, or that of what was delivered when the answer was cut (the engine died,
 * failed in band, or the client left); undefined when nothing went out.
 */
export async function relayChatStream(
  batches: AsyncIterable<ChatPartBatch>,
  header: ChatAnswerHeader,
  toolStream: boolean,
  writer: SseWriter,
  promptTokensWithoutEngine: () => Promise<number>,
): Promise<ChatUsage | undefined> {
  const iterator = batches[Symbol.asyncIterator]();
  let next = await iterator.next();
  writer.open();
  const calls = new Map<number, PendingCall>();
  const delivered = new DeliveredOutput();
  // Work that reached the client is billed however the answer ended.
  const deliveredUsage = async () => (delivered.any ? delivered.usageWhenCut(undefined, promptTokensWithoutEngine) : undefined);
  try {
    for (; !next.done; next = await iterator.next()) {
      for (const part of next.value) {
        if (!writer.writable) return await deliveredUsage();
        if (part.type === 'finish') {
          if (!toolStream && calls.size > 0) writer.add(toChunk(header, { role: 'assistant', tool_calls: wholeCalls(calls) }));
          await writer.send(toFinalChunk(header, part.reason, part.usage));
          return part.usage;
        }
        const delta = relayPart(part, calls, toolStream);
        if (delta === undefined) continue;
        writer.add(toChunk(header, delta));
        delivered.add(deliveredText(part));
      }
      // The events of a batch go out in one write; under backpressure the next batch waits until the response drains.
      const drained = writer.flush();
      if (drained !== undefined) await drained;
    }
    throw new EngineConnectionError('the engine stream ended without a finish');
  } catch (error) {
    if (!writer.writable) return await deliveredUsage();
    if (error instanceof EngineConnectionError) {
      const usage = await delivered.usageWhenCut(error.usage, promptTokensWithoutEngine);
      await writer.send(toFinalChunk(header, 'network_error', usage));
      return usage;
    }
    await writer.send(writer.inBandError(error).toBody());
    return await deliveredUsage();
  } finally {
    await iterator.return?.();
    await writer.end();
  }
}

/** The delta to send for one part now, or undefined when the part is held back (or empty). */
function relayPart(part: Exclude<ChatStreamPart, { type: 'finish' }>, calls: Map<number, PendingCall>, toolStream: boolean): WireDelta | undefined {
  switch (part.type) {
    case 'reasoning':
      return part.text === '' ? undefined : { role: 'assistant', reasoning_content: part.text };
    case 'text':
      return part.text === '' ? undefined : { role: 'assistant', content: part.text };
    case 'tool-call-start':
      calls.set(part.index, { id: part.id, name: part.name, arguments: '' });
      return toolStream
        ? { role: 'assistant', tool_calls: [{ index: part.index, id: part.id, type: 'function', function: { name: part.name, arguments: '' } }] }
        : undefined;
    case 'tool-call-delta': {
      const call = calls.get(part.index);
      if (call === undefined) throw new EngineConnectionError(`the engine sent arguments for unknown tool call ${part.index}`);
      call.arguments += part.argumentsDelta;
      return toolStream && part.argumentsDelta !== ''
        ? { role: 'assistant', tool_calls: [{ index: part.index, id: call.id, type: 'function', function: { arguments: part.argumentsDelta } }] }
        : undefined;
    }
  }
}

/** The output text of a part that went out as a delta (what DeliveredOutput counts). */
function deliveredText(part: Exclude<ChatStreamPart, { type: 'finish' }>): string {
  switch (part.type) {
    case 'reasoning':
    case 'text':
      return part.text;
    case 'tool-call-start':
      return part.name;
    case 'tool-call-delta':
      return part.argumentsDelta;
  }
}

function wholeCalls(calls: Map<number, PendingCall>): WireToolCallDelta[] {
  return [...calls.entries()].map(([index, call]) => ({
    index,
    id: call.id,
    type: 'function' as const,
    function: { name: call.name, arguments: call.arguments },
  }));
}
