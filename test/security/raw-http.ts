import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';

/** A client connection on 127.0.0.1 that records what the server sends and when it closes. */
export interface RawClient {
  readonly socket: Socket;
  /** Everything received so far, as Latin-1 text. */
  received(): string;
  /** Resolves when the server has closed the connection (or it broke), with the time it took since connecting. */
  readonly closed: Promise<number>;
  /** Writes unless the connection is gone; false when it was. */
  write(data: string | Buffer): boolean;
  /** Resolves when the server's answer has `bytes` bytes or more, or the connection closed. */
  receivedAtLeast(bytes: number): Promise<string>;
}

export async function openRawClient(port: number): Promise<RawClient> {
  const socket = connect(port, '127.0.0.1');
  const started = Date.now();
  const chunks: Buffer[] = [];
  let waiters: (() => void)[] = [];
  socket.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    for (const waiter of waiters) waiter();
  });
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => {
    socket.once('close', () => {
      for (const waiter of waiters) waiter();
      resolve(Date.now() - started);
    });
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const received = () => Buffer.concat(chunks).toString('latin1');
  return {
    socket,
    received,
    closed,
    write: (data) => !socket.destroyed && socket.write(data),
    receivedAtLeast: (bytes) =>
      new Promise((resolve) => {
        const check = () => {
          if (Buffer.concat(chunks).length >= bytes || socket.destroyed) {
            waiters = waiters.filter((waiter) => waiter !== check);
            resolve(received());
          }
        };
        waiters.push(check);
        check();
      }),
  };
}

/** Waits until the client has received one whole response (headers and Content-Length body), or the connection closed. */
export async function completeResponse(client: RawClient): Promise<RawResponse> {
  for (;;) {
    const text = client.received();
    const headerEnd = text.indexOf('\r\n\r\n');
    if (headerEnd > 0) {
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text.slice(0, headerEnd))?.[1] ?? '0');
      if (text.length >= headerEnd + 4 + length) return parseRawResponse(text);
    }
    if (client.socket.destroyed) return parseRawResponse(text);
    await client.receivedAtLeast(text.length + 1);
  }
}

/** Sends `data` on a new connection and returns all the server wrote before it closed (or `waitMs` passed). */
export async function rawExchange(port: number, data: string | Buffer, waitMs = 5000): Promise<string> {
  const client = await openRawClient(port);
  client.write(data);
  const timer = setTimeout(() => client.socket.destroy(), waitMs);
  await client.closed;
  clearTimeout(timer);
  return client.received();
}

export interface RawResponse {
  readonly status: number;
  readonly headers: ReadonlyMap<string, string>;
  readonly body: string;
}

/** The first HTTP/1.1 response in `text` (Content-Length bodies only). */
export function parseRawResponse(text: string): RawResponse {
  const headerEnd = text.indexOf('\r\n\r\n');
  assert.ok(headerEnd > 0, `a complete HTTP response, got ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine = '', ...lines] = text.slice(0, headerEnd).split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3}) /.exec(statusLine);
  assert.ok(status !== null, `a status line, got ${JSON.stringify(statusLine)}`);
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const length = Number(headers.get('content-length') ?? '0');
  return { status: Number(status[1]), headers, body: text.slice(headerEnd + 4, headerEnd + 4 + length) };
}

/** Asserts the platform's error body, exactly `{"error":{"code","message"}}`, with this status and code. */
export function assertRawPlatformError(text: string, expected: { status: number; code: string }): RawResponse {
  const response = parseRawResponse(text);
  assert.equal(response.status, expected.status, `status for ${text.slice(0, 300)}`);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  const body = JSON.parse(response.body) as { error?: Record<string, unknown> };
  assert.deepEqual(Object.keys(body), ['error'], response.body);
  assert.deepEqual(Object.keys(body.error ?? {}).sort(), ['code', 'message'], response.body);
  assert.equal(body.error?.['code'], expected.code, response.body);
  assert.equal(typeof body.error?.['message'], 'string');
  assert.match(response.headers.get('x-request-id') ?? '', /^\d{14}[0-9a-f]{16}$/, 'a generated request id');
  return response;
}
