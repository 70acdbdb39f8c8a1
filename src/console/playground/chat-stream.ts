import { createParser } from 'eventsource-parser';
import { callRaw } from '../api/api-client.ts';

/** What a streamed chat answer has shown so far; each event of the stream adds to it. */
export interface ChatProgress {
  readonly content: string;
  readonly reasoning: string;
  readonly toolCalls: readonly { readonly id: string; readonly name: string; readonly arguments: string }[];
  readonly finishReason: string | undefined;
  readonly usage: { readonly prompt_tokens: number; readonly completion_tokens: number } | undefined;
}

interface ChunkDelta {
  content?: string | null;
  reasoning_content?: string | null;
  tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[];
}

interface Chunk {
  choices?: { delta?: ChunkDelta; finish_reason?: string | null }[];
  usage?: ChatProgress['usage'];
  error?: { code: string; message: string };
}

export const emptyProgress: ChatProgress = { content: '', reasoning: '', toolCalls: [], finishReason: undefined, usage: undefined };

/**
 * POSTs a chat request with `stream: true` and reports the answer as each event arrives (text,
 * reasoning, tool calls by index). An error sent inside the stream is thrown as the API's message.
 */
export async function streamChat(
  key: string,
  path: string,
  body: object,
  onProgress: (progress: ChatProgress) => void,
  signal: AbortSignal,
): Promise<ChatProgress> {
  const response = await callRaw(key, path, { body: { ...body, stream: true }, signal });
  let progress = emptyProgress;
  let streamError: Error | undefined;
  const parser = createParser({
    onEvent: (event) => {
      if (event.data === '[DONE]') return;
      const chunk = JSON.parse(event.data) as Chunk;
      if (chunk.error !== undefined) {
        streamError = new Error(`${chunk.error.code}: ${chunk.error.message}`);
        return;
      }
      progress = applyChunk(progress, chunk);
      onProgress(progress);
    },
  });
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (reader === undefined) throw new Error('The answer has no body.');
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(value);
  }
  if (streamError !== undefined) throw streamError;
  return progress;
}

function applyChunk(progress: ChatProgress, chunk: Chunk): ChatProgress {
  const choice = chunk.choices?.[0];
  const delta = choice?.delta ?? {};
  const toolCalls = [...progress.toolCalls];
  for (const call of delta.tool_calls ?? []) {
    const index = call.index ?? toolCalls.length;
    const known = toolCalls[index] ?? { id: '', name: '', arguments: '' };
    toolCalls[index] = {
      id: call.id ?? known.id,
      name: known.name + (call.function?.name ?? ''),
      arguments: known.arguments + (call.function?.arguments ?? ''),
    };
  }
  return {
    content: progress.content + (delta.content ?? ''),
    reasoning: progress.reasoning + (delta.reasoning_content ?? ''),
    toolCalls,
    finishReason: choice?.finish_reason ?? progress.finishReason,
    usage: chunk.usage ?? progress.usage,
  };
}
