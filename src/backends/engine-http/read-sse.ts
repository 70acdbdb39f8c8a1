import { createParser } from 'eventsource-parser';
import { AnswerOverCapError } from './answer-over-cap-error.ts';

export interface SseReadOptions {
  /**
   * Most bytes between two events (one event's lines, or comments and blank lines between events):
   * a stream that sends more without completing an event fails with AnswerOverCapError.
   */
  readonly maxEventBytes: number;
}

/**
 * The `data` of each server-sent event of a byte stream (an upstream engine's answer), in order,
 * parsed by eventsource-parser: linear in its input (a long line is kept as fragments, joined
 * once when its end arrives), CR, LF and CRLF line ends, comments and other fields ignored,
 * several `data:` lines of one event joined by newlines. An event left without its blank line
 * when the stream ends is still delivered (engines that end on `data: [DONE]\n`). Stopping the
 * iteration early stops reading the byte stream.
 */
export async function* readSseData(body: AsyncIterable<Uint8Array>, options: SseReadOptions): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const events: string[] = [];
  let bytesSinceEvent = 0;
  let overCap = false;
  const parser = createParser({
    onEvent: (event) => {
      events.push(event.data);
      bytesSinceEvent = 0;
    },
    onComment: () => undefined,
    // The parser counts characters; a character is at least one byte, so this never lets more through.
    maxBufferSize: options.maxEventBytes,
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') overCap = true;
    },
  });
  const tooLarge = () => new AnswerOverCapError('one stream event', options.maxEventBytes, 'bytes');
  for await (const bytes of body) {
    bytesSinceEvent += bytes.byteLength;
    parser.feed(decoder.decode(bytes, { stream: true }));
    if (overCap) throw tooLarge();
    // Events delivered by this read are yielded before the bytes after them are judged.
    for (const data of events.splice(0)) yield data;
    if (bytesSinceEvent > options.maxEventBytes) throw tooLarge();
  }
  parser.feed(`${decoder.decode()}\n\n`);
  if (overCap) throw tooLarge();
  for (const data of events.splice(0)) yield data;
}
