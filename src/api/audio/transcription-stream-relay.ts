import type { SseWriter } from '../../http/sse-writer.ts';

export interface TranscriptionHeader {
  readonly id: string;
  readonly created: number;
  readonly model: string;
}

/**
 * Relays transcript deltas as platform frames (docs/wire.md §3.4): one
 * `transcript.text.delta` frame per delta, then `transcript.text.done` carrying both an empty
 * delta and the full text, then `[DONE]`. The first delta is awaited before any byte is sent, so
 * an engine that fails at once gets a real HTTP status; later failures travel in-band. True when
 * the whole transcript was sent (the call completed), false when it failed or the client left.
 */
export async function relayTranscriptionStream(deltas: AsyncIterable<string>, header: TranscriptionHeader, writer: SseWriter): Promise<boolean> {
  const iterator = deltas[Symbol.asyncIterator]();
  let next = await iterator.next();
  writer.open();
  let text = '';
  try {
    for (; !next.done; next = await iterator.next()) {
      if (!writer.writable) return false;
      if (next.value === '') continue;
      text += next.value;
      await writer.send({ ...header, type: 'transcript.text.delta', delta: next.value });
    }
    await writer.send({ ...header, type: 'transcript.text.done', delta: '', text });
    return true;
  } catch (error) {
    if (!writer.writable) return false;
    await writer.send(writer.inBandError(error).toBody());
    return false;
  } finally {
    await iterator.return?.();
    await writer.end();
  }
}

/** The whole transcript as one delta, for engines that cannot stream. */
export async function* wholeTextAsDelta(transcription: Promise<{ text: string }>): AsyncGenerator<string> {
  yield (await transcription).text;
}
