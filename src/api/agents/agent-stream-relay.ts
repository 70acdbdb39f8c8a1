import type { AgentEvent } from '../../agents/agent.ts';
import { ApiError } from '../../core/errors/api-error.ts';
import type { SseWriter } from '../../http/sse-writer.ts';
import { toAgentDeltaChunk, toAgentErrorChunk, toAgentFinalChunk, type AgentAnswerHeader, type AgentOutcome } from './agents.mapper.ts';

/**
 * Relays an agent run as an event stream (docs/wire.md §3.5): agent_id on every frame, text
 * deltas, then a last frame with finish_reason and usage, then `[DONE]`. The first event is
 * awaited before any byte goes out, so an agent that fails at once (bad glossary, engine down)
 * answers with a real HTTP status; a failure after that is an in-band error frame.
 * Resolves with the outcome of a completed run (undefined when it did not complete).
 */
export async function relayAgentStream(events: AsyncIterable<AgentEvent>, header: AgentAnswerHeader, writer: SseWriter): Promise<AgentOutcome | undefined> {
  const iterator = events[Symbol.asyncIterator]();
  let next = await iterator.next();
  writer.open();
  try {
    for (; !next.done; next = await iterator.next()) {
      if (!writer.writable) return undefined;
      const event = next.value;
      if (event.kind === 'done') {
        await writer.send(toAgentFinalChunk(header, event));
        return event;
      }
      if (event.text !== '') await writer.send(toAgentDeltaChunk(header, event.text));
    }
    throw new ApiError('500', 'The agent ended without a result.');
  } catch (error) {
    if (!writer.writable) return undefined;
    await writer.send(toAgentErrorChunk(header, writer.inBandError(error).toBody().error));
    return undefined;
  } finally {
    await iterator.return?.();
    await writer.end();
  }
}

/** Runs an agent to its end for a synchronous answer: the deltas joined, and the outcome. */
export async function collectAgentRun(events: AsyncIterable<AgentEvent>): Promise<{ text: string; outcome: AgentOutcome }> {
  let text = '';
  for await (const event of events) {
    if (event.kind === 'done') return { text, outcome: event };
    text += event.text;
  }
  throw new ApiError('500', 'The agent ended without a result.');
}
