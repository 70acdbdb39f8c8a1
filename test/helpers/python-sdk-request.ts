import { once } from 'node:events';
import { connect } from 'node:net';

/**
 * The headers the official Python SDK (ZaiClient on httpx, docs/wire.md §6) sends on every
 * request, whatever its method and body: httpx's own, then the SDK's, JSON content type included.
 */
export function pythonSdkHeaders(apiKey: string): [string, string][] {
  return [
    ['Accept-Encoding', 'gzip, deflate'],
    ['Connection', 'keep-alive'],
    ['User-Agent', 'python-httpx/0.28.1'],
    ['Accept', 'application/json'],
    ['Content-Type', 'application/json; charset=UTF-8'],
    ['Zai-SDK-Ver', '0.2.2'],
    ['source_type', 'z-ai-sdk-python'],
    ['x-request-sdk', 'z-ai-sdk-python'],
    ['x-source-channel', 'python-sdk'],
    ['Accept-Language', 'en-US,en'],
    ['Authorization', `Bearer ${apiKey}`],
  ];
}

export interface RawResponse {
  readonly status: number;
  readonly headers: ReadonlyMap<string, string>;
  readonly body: string;
}

/**
 * Sends one request byte for byte as written (no client library adds or changes a header: a
 * bodiless request has neither Content-Length nor Transfer-Encoding, as httpx sends a DELETE),
 * and reads the answer by its Content-Length. Times out after `timeoutMs`.
 */
export async function sendRawRequest(
  port: number,
  request: { method: string; path: string; headers: readonly [string, string][]; body?: string },
  timeoutMs = 10_000,
): Promise<RawResponse> {
  const socket = connect(port, '127.0.0.1');
  socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no complete answer within ${timeoutMs} ms`)));
  try {
    await once(socket, 'connect');
    const headerLines = [['Host', `127.0.0.1:${port}`], ...request.headers].map(([name, value]) => `${name}: ${value}\r\n`).join('');
    socket.write(`${request.method} ${request.path} HTTP/1.1\r\n${headerLines}\r\n${request.body ?? ''}`);
    let received = Buffer.alloc(0);
    for await (const chunk of socket) {
      received = Buffer.concat([received, chunk as Buffer]);
      const parsed = parseResponse(received);
      if (parsed !== undefined) return parsed;
    }
    throw new Error(`the connection closed before a complete answer: ${received.toString('latin1')}`);
  } finally {
    socket.destroy();
  }
}

function parseResponse(received: Buffer): RawResponse | undefined {
  const end = received.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
  const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  const length = Number(headers.get('content-length') ?? 'NaN');
  if (!Number.isInteger(length)) throw new Error(`the answer has no Content-Length: ${statusLine}`);
  const body = received.subarray(end + 4);
  if (body.length < length) return undefined;
  return { status: Number(statusLine.split(' ')[1]), headers, body: body.subarray(0, length).toString('utf8') };
}
