import { createParser, type EventSourceParser } from 'eventsource-parser';
import { AnswerOverCapError } from './answer-over-cap-error.ts';

const noEvents: readonly string[] = Object.freeze([]);

export interface SseReadOptions {
  /**
   * Most bytes between two events (one event's lines, or comments and blank lines between events):
   * a stream that sends more without completing an event fails with AnswerOverCapError.
   */
  readonly maxEventBytes: number;
}

/**
 * The `data` of each server-sent event of a byte stream (an upstream engine's answer), fed as the
 * bytes arrive and handed back in order, parsed by eventsource-parser: linear in its input (a long
 * line is kept as fragments, joined once when its end arrives), CR, LF and CRLF line ends,
 * comments and other fields ignored, several `data:` lines of one event joined by newlines. An
 * event left without its blank line when the stream ends is still delivered (engines that end on
 * `data: [DONE]\n`). Synchronous: the bytes of one read become that read's events with no promise
 * between them.
 */
export class SseDataReader {
  readonly #decoder = new TextDecoder();
  readonly #maxEventBytes: number;
  readonly #parser: EventSourceParser;
  #events: string[] = [];
  #bytesSinceEvent = 0;
  #parserOverCap = false;

  constructor(options: SseReadOptions) {
    this.#maxEventBytes = options.maxEventBytes;
    this.#parser = createParser({
      onEvent: (event) => {
        this.#events.push(event.data);
        this.#bytesSinceEvent = 0;
      },
      onComment: () => undefined,
      // The parser counts characters; a character is at least one byte, so this never lets more through.
      maxBufferSize: options.maxEventBytes,
      onError: (error) => {
        if (error.type === 'max-buffer-size-exceeded') this.#parserOverCap = true;
      },
    });
  }

  /**
   * The events these bytes complete, in order. Throws AnswerOverCapError when one event outgrows
   * the parser's buffer; bytes past the cap after the last complete event show in `overCap`, so
   * that the events before them are still read first.
   */
  read(bytes: Uint8Array): readonly string[] {
    this.#bytesSinceEvent += bytes.byteLength;
    this.#parser.feed(this.#decoder.decode(bytes, { stream: true }));
    return this.#take();
  }

  /** The event left at the end of the stream, if any. */
  end(): readonly string[] {
    this.#parser.feed(`${this.#decoder.decode()}\n\n`);
    return this.#take();
  }

  /** Whether more bytes than the cap came without completing an event. */
  get overCap(): boolean {
    return this.#bytesSinceEvent > this.#maxEventBytes;
  }

  /** The failure for a stream over the cap. */
  tooLarge(): AnswerOverCapError {
    return new AnswerOverCapError('one stream event', this.#maxEventBytes, 'bytes');
  }

  #take(): readonly string[] {
    if (this.#parserOverCap) throw this.tooLarge();
    if (this.#events.length === 0) return noEvents;
    const events = this.#events;
    this.#events = [];
    return events;
  }
}
