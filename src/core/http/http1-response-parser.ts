/** An answer that breaks HTTP/1.1 framing: the connection it came on cannot be trusted again. */
export class HttpProtocolError extends Error {
  readonly code = 'HPE_INVALID';
}

/** The parts of a response head the client acts on; other header fields are not kept. */
export interface ResponseHead {
  readonly status: number;
  /** The connection may carry another request once this answer is read. */
  readonly keepAlive: boolean;
  /** Seconds from the server's `Keep-Alive: timeout=N`, when it sent one. */
  readonly keepAliveSeconds: number | undefined;
}

export interface ResponseEvents {
  /** The final head (1xx interim answers are skipped). */
  onHead(head: ResponseHead): void;
  onBody(chunk: Buffer): void;
  /** The whole answer has arrived. */
  onEnd(): void;
}

/** Limits: a head or a chunk line beyond these is not an engine's answer. */
const maxHeadBytes = 64 * 1024;
const maxLineBytes = 4 * 1024;
const maxChunkSizeDigits = 12;

/** Where the parser is in the answer. */
const State = { Head: 0, FixedBody: 1, ChunkSize: 2, ChunkData: 3, ChunkDataEnd: 4, Trailers: 5, UntilClose: 6, Done: 7 } as const;
type State = (typeof State)[keyof typeof State];

const statusLine = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: [^\r\n]*)?$/;
/** A field name (RFC 9110 token); a folded line (leading space) or a line without a colon is not one. */
const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A CR or LF that is not part of a CRLF, or a NUL: not HTTP. */
const strayLineBreak = /\r(?!\n)|(?<!\r)\n|\0/;
const digits = /^\d{1,15}$/;
const hexDigits = /^[0-9A-Fa-f]+$/;
const crlf = Buffer.from('\r\n');
const headEnd = Buffer.from('\r\n\r\n');

/**
 * Reads one HTTP/1.1 response to a POST, byte by byte as it arrives: the head, then a body framed
 * by Content-Length, chunked transfer coding or the end of the connection. Strict: anything
 * outside the grammar (an obsolete folded line, a bad length, two different lengths, a chunk line
 * that is not hex) throws HttpProtocolError, and bytes after the end of the answer are an error
 * too (nothing is pipelined on engine connections, so they cannot belong to anything).
 */
export class Http1ResponseParser {
  readonly #events: ResponseEvents;
  #state: State = State.Head;
  /** Bytes of a head, chunk line or trailer section not complete yet. */
  #pending: Buffer | undefined;
  #remaining = 0;
  #keepAlive = false;

  constructor(events: ResponseEvents) {
    this.#events = events;
  }

  get done(): boolean {
    return this.#state === State.Done;
  }

  /** Whether the connection may carry another request: only once the answer is complete. */
  get reusable(): boolean {
    return this.#state === State.Done && this.#keepAlive;
  }

  /** Parses the next bytes; throws HttpProtocolError on anything that is not a valid answer. */
  execute(data: Buffer): void {
    let input = data;
    if (this.#pending !== undefined) {
      input = Buffer.concat([this.#pending, data]);
      this.#pending = undefined;
    }
    let offset = 0;
    while (offset < input.length) {
      switch (this.#state) {
        case State.Head:
          offset = this.#readHead(input, offset);
          break;
        case State.FixedBody:
        case State.ChunkData: {
          const end = Math.min(input.length, offset + this.#remaining);
          this.#remaining -= end - offset;
          this.#events.onBody(offset === 0 && end === input.length ? input : input.subarray(offset, end));
          offset = end;
          if (this.#remaining === 0) {
            if (this.#state === State.FixedBody) this.#finish();
            else this.#state = State.ChunkDataEnd;
          }
          break;
        }
        case State.ChunkSize:
          offset = this.#readChunkSize(input, offset);
          break;
        case State.ChunkDataEnd:
          offset = this.#readChunkEnd(input, offset);
          break;
        case State.Trailers:
          offset = this.#readTrailers(input, offset);
          break;
        case State.UntilClose:
          this.#events.onBody(offset === 0 ? input : input.subarray(offset));
          offset = input.length;
          break;
        case State.Done:
          throw new HttpProtocolError('the engine sent bytes after the end of its answer');
      }
    }
  }

  /** The connection ended: completes an answer framed by the end of the connection, else it was cut short. */
  finish(): void {
    if (this.#state === State.UntilClose) {
      this.#finish();
      return;
    }
    if (this.#state !== State.Done) throw new HttpProtocolError('the connection closed before the answer was complete');
  }

  #readHead(input: Buffer, offset: number): number {
    const end = input.indexOf(headEnd, offset);
    if (end === -1) {
      if (input.length - offset > maxHeadBytes) throw new HttpProtocolError('the answer head is too large');
      this.#pending = input.subarray(offset);
      return input.length;
    }
    if (end - offset > maxHeadBytes) throw new HttpProtocolError('the answer head is too large');
    this.#parseHead(input.toString('latin1', offset, end));
    return end + headEnd.length;
  }

  #parseHead(text: string): void {
    if (strayLineBreak.test(text)) throw new HttpProtocolError('the answer head holds a bare CR, LF or NUL');
    const statusEnd = text.indexOf('\r\n');
    const first = statusEnd === -1 ? text : text.slice(0, statusEnd);
    const status = statusLine.exec(first);
    if (status === null) throw new HttpProtocolError(`not an HTTP/1.1 status line: ${JSON.stringify(first.slice(0, 80))}`);
    const minorVersion = status[1];
    const code = Number(status[2]);
    let contentLength: number | undefined;
    let chunked = false;
    let transferCoded = false;
    let connection = '';
    let keepAliveSeconds: number | undefined;
    // Line by line without splitting the head: only the four fields the client acts on are read.
    for (let position = statusEnd === -1 ? text.length : statusEnd + 2; position < text.length; ) {
      const found = text.indexOf('\r\n', position);
      const lineEnd = found === -1 ? text.length : found;
      const colon = text.indexOf(':', position);
      const name = colon === -1 || colon > lineEnd ? '' : text.slice(position, colon);
      if (!token.test(name)) throw new HttpProtocolError(`not a header line: ${JSON.stringify(text.slice(position, Math.min(lineEnd, position + 80)))}`);
      if (name.length === 10 || name.length === 14 || name.length === 17) {
        const value = text.slice(colon + 1, lineEnd).trim();
        switch (name.toLowerCase()) {
          case 'content-length':
            for (const item of value.split(',')) {
              const length = item.trim();
              if (!digits.test(length)) throw new HttpProtocolError(`invalid Content-Length: ${JSON.stringify(value.slice(0, 40))}`);
              if (contentLength !== undefined && contentLength !== Number(length)) throw new HttpProtocolError('two different Content-Length values');
              contentLength = Number(length);
            }
            break;
          case 'transfer-encoding': {
            transferCoded = true;
            const codings = value.toLowerCase().split(',');
            chunked = codings[codings.length - 1]?.trim() === 'chunked';
            break;
          }
          case 'connection':
            connection += `${value.toLowerCase()},`;
            break;
          case 'keep-alive': {
            const timeout = /(?:^|[,\s])timeout=(\d{1,6})/i.exec(value)?.[1];
            if (timeout !== undefined) keepAliveSeconds = Number(timeout);
            break;
          }
        }
      }
      position = lineEnd + 2;
    }
    // Interim answers (100 Continue, 103 Early Hints) come before the real one; 101 would switch protocols.
    if (code < 200) {
      if (code === 101) throw new HttpProtocolError('the engine switched protocols');
      return;
    }
    const closes = /(?:^|[\s,])close(?:[\s,]|$)/.test(connection);
    const keepsAlive = minorVersion === '1' ? !closes : /(?:^|[\s,])keep-alive(?:[\s,]|$)/.test(connection) && !closes;
    // RFC 9112 §6.3: no body for 204 and 304; Transfer-Encoding overrides Content-Length (and then
    // the connection is not reused); a transfer coding other than chunked last runs to the close.
    if (code === 204 || code === 304) {
      this.#keepAlive = keepsAlive;
      this.#events.onHead({ status: code, keepAlive: keepsAlive, keepAliveSeconds });
      this.#finish();
      return;
    }
    if (transferCoded) {
      this.#keepAlive = chunked && contentLength === undefined && keepsAlive;
      this.#state = chunked ? State.ChunkSize : State.UntilClose;
    } else if (contentLength !== undefined) {
      this.#keepAlive = keepsAlive;
      this.#remaining = contentLength;
      this.#state = State.FixedBody;
    } else {
      this.#keepAlive = false;
      this.#state = State.UntilClose;
    }
    this.#events.onHead({ status: code, keepAlive: this.#keepAlive, keepAliveSeconds });
    if (this.#state === State.FixedBody && this.#remaining === 0) this.#finish();
  }

  #readChunkSize(input: Buffer, offset: number): number {
    const end = this.#lineEnd(input, offset);
    if (end === -1) return input.length;
    const line = input.toString('latin1', offset, end);
    const extension = line.indexOf(';');
    const size = (extension === -1 ? line : line.slice(0, extension)).trim();
    if (!hexDigits.test(size) || size.length > maxChunkSizeDigits) throw new HttpProtocolError(`invalid chunk size: ${JSON.stringify(line.slice(0, 40))}`);
    this.#remaining = Number.parseInt(size, 16);
    this.#state = this.#remaining === 0 ? State.Trailers : State.ChunkData;
    return end + crlf.length;
  }

  #readChunkEnd(input: Buffer, offset: number): number {
    if (input.length - offset < crlf.length) {
      this.#pending = input.subarray(offset);
      return input.length;
    }
    if (input[offset] !== 0x0d || input[offset + 1] !== 0x0a) throw new HttpProtocolError('a chunk is longer than its size');
    this.#state = State.ChunkSize;
    return offset + crlf.length;
  }

  /** Trailer fields after the last chunk are read and ignored, up to the empty line. */
  #readTrailers(input: Buffer, offset: number): number {
    let position = offset;
    for (;;) {
      const end = this.#lineEnd(input, position);
      if (end === -1) return input.length;
      if (end === position) {
        this.#finish();
        return end + crlf.length;
      }
      const line = input.toString('latin1', position, end);
      const colon = line.indexOf(':');
      if (colon === -1 || !token.test(line.slice(0, colon)) || strayLineBreak.test(line)) throw new HttpProtocolError('invalid trailer line');
      position = end + crlf.length;
    }
  }

  /** Where the line starting at `offset` ends (its CR), or -1 with the partial line kept for later. */
  #lineEnd(input: Buffer, offset: number): number {
    const end = input.indexOf(crlf, offset);
    if (end === -1) {
      if (input.length - offset > maxLineBytes) throw new HttpProtocolError('a line of the answer is too long');
      this.#pending = input.subarray(offset);
      return -1;
    }
    if (end - offset > maxLineBytes) throw new HttpProtocolError('a line of the answer is too long');
    return end;
  }

  #finish(): void {
    this.#state = State.Done;
    this.#events.onEnd();
  }
}
