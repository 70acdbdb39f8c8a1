import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { FuzzAnswer } from './fuzz-oracle.ts';
import { encodeMultipart } from './multipart-body.ts';

/** A request written byte by byte over a real socket: what app.inject cannot send. */
export interface RawCase {
  readonly label: string;
  readonly bytes: Buffer;
  /** Close the sending side after the bytes (a client that gives up mid-body). */
  readonly halfClose?: boolean;
  /** The server may close the connection without an answer (the request never ended). */
  readonly mayClose?: boolean;
}

const chatPath = '/paas/v4/chat/completions';
const validChat = '{"model":"glm-4.7","messages":[{"role":"user","content":"Hi"}]}';

function request(path: string, headers: readonly string[], body: Buffer | string, options: { length?: number; method?: string } = {}): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const head = [`${options.method ?? 'POST'} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close', ...headers];
  if (!headers.some((header) => /^(content-length|transfer-encoding):/i.test(header))) head.push(`Content-Length: ${options.length ?? bytes.length}`);
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), bytes]);
}

/** The byte-level cases: bodies that are not UTF-8, odd encodings and content types, broken multipart, broken framing. */
export function rawHttpCases(authorization: string): RawCase[] {
  const auth = `Authorization: ${authorization}`;
  const json = 'Content-Type: application/json';
  const invalid = Buffer.concat([
    Buffer.from('{"model":"glm-4.7","messages":[{"role":"user","content":"'),
    Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]),
    Buffer.from('"}]}'),
  ]);
  const form = (closing: boolean) =>
    encodeMultipart(
      [
        { name: 'purpose', value: 'user_data' },
        { name: 'file', value: 'term\tTerm\n'.repeat(50), filename: 'g.txt', contentType: 'text/plain' },
      ],
      { closing },
    );
  const complete = form(true);
  const truncated = form(false);
  const multipart = `Content-Type: ${complete.contentType}`;
  const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
  return [
    { label: 'JSON with bytes that are not UTF-8', bytes: request(chatPath, [auth, json], invalid) },
    { label: 'JSON with a byte-order mark', bytes: request(chatPath, [auth, json], Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(validChat)])) },
    { label: 'JSON in UTF-16', bytes: request(chatPath, [auth, 'Content-Type: application/json; charset=utf-16'], Buffer.from(validChat, 'utf16le')) },
    { label: 'Content-Encoding gzip with garbage', bytes: request(chatPath, [auth, json, 'Content-Encoding: gzip'], Buffer.from('not gzip at all')) },
    { label: 'Content-Encoding gzip with a real gzip body', bytes: request(chatPath, [auth, json, 'Content-Encoding: gzip'], gzipSync(validChat)) },
    { label: 'Content-Encoding br, deflate', bytes: request(chatPath, [auth, json, 'Content-Encoding: br, deflate'], validChat) },
    { label: 'text/plain body', bytes: request(chatPath, [auth, 'Content-Type: text/plain'], validChat) },
    {
      label: 'application/json; charset=latin1',
      bytes: request(
        chatPath,
        [auth, 'Content-Type: application/json; charset=latin1'],
        Buffer.from('{"model":"glm-4.7","messages":[{"role":"user","content":"caf\xe9"}]}', 'latin1'),
      ),
    },
    { label: 'no content type', bytes: request(chatPath, [auth], validChat) },
    { label: 'two Content-Type headers', bytes: request(chatPath, [auth, json, 'Content-Type: text/plain'], validChat) },
    { label: 'a Content-Type listing two types', bytes: request(chatPath, [auth, 'Content-Type: application/json, text/plain'], validChat) },
    { label: 'an empty JSON body', bytes: request(chatPath, [auth, json], '') },
    { label: 'a JSON body of null', bytes: request(chatPath, [auth, json], 'null') },
    { label: 'a truncated JSON body', bytes: request(chatPath, [auth, json], validChat.slice(0, 25)) },
    { label: 'arrays nested 10k deep as the body', bytes: request(chatPath, [auth, json], deep) },
    { label: 'arrays nested 10k deep as a field', bytes: request(chatPath, [auth, json], `{"model":"glm-4.7","messages":${deep}}`) },
    {
      label: 'objects nested 10k deep in tool parameters',
      bytes: request(
        chatPath,
        [auth, json],
        `{"model":"glm-4.7","messages":[{"role":"user","content":"Hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}}]}`,
      ),
    },
    { label: 'two Authorization headers', bytes: request(chatPath, [auth, auth, json], validChat) },
    {
      label: 'Content-Length larger than the body, then the client closes',
      bytes: request(chatPath, [auth, json], validChat, { length: validChat.length + 100 }),
      halfClose: true,
      mayClose: true,
    },
    { label: 'chunked body with a bad chunk size', bytes: request(chatPath, [auth, json, 'Transfer-Encoding: chunked'], 'zz\r\n{}\r\n0\r\n\r\n') },
    {
      label: 'both Content-Length and Transfer-Encoding',
      bytes: request(chatPath, [auth, json, 'Content-Length: 4', 'Transfer-Encoding: chunked'], '0\r\n\r\n'),
    },
    { label: 'a 20 KB header', bytes: request(chatPath, [auth, json, `X-Big: ${'a'.repeat(20_000)}`], validChat) },
    { label: 'a 20 KB URL', bytes: request(`/paas/v4/files/${'a'.repeat(20_000)}`, [auth], '', { method: 'GET' }) },
    { label: 'a path that does not decode', bytes: request('/paas/v4/files/%E0%A4%A', [auth], '', { method: 'GET' }) },
    { label: 'an unknown method', bytes: request(chatPath, [auth, json], validChat, { method: 'PROPFIND' }) },
    { label: 'a GET with a body on a POST route', bytes: request(chatPath, [auth, json], validChat, { method: 'GET' }) },
    { label: 'Expect: 100-continue', bytes: request(chatPath, [auth, json, 'Expect: 100-continue'], validChat) },
    { label: 'multipart without a boundary parameter', bytes: request('/paas/v4/files', [auth, 'Content-Type: multipart/form-data'], complete.payload) },
    {
      label: 'multipart whose boundary differs from the body',
      bytes: request('/paas/v4/files', [auth, 'Content-Type: multipart/form-data; boundary=other'], complete.payload),
    },
    { label: 'multipart without the closing boundary', bytes: request('/paas/v4/files', [auth, multipart], truncated.payload) },
    {
      label: 'multipart cut in the middle of the file',
      bytes: request('/paas/v4/files', [auth, multipart], complete.payload.subarray(0, complete.payload.length - 200)),
    },
    {
      label: 'multipart cut in the middle of the file, then the client closes',
      bytes: request('/paas/v4/files', [auth, multipart], complete.payload.subarray(0, 150), { length: complete.payload.length }),
      halfClose: true,
      mayClose: true,
    },
    {
      label: 'multipart with a part header without a colon',
      bytes: request(
        '/paas/v4/files',
        [auth, multipart],
        Buffer.from(
          `--${complete.contentType.split('boundary=')[1]}\r\nContent-Disposition form-data\r\n\r\nx\r\n--${complete.contentType.split('boundary=')[1]}--\r\n`,
        ),
      ),
    },
    {
      label: 'multipart with a 100 KB part header',
      bytes: request(
        '/paas/v4/files',
        [auth, multipart],
        Buffer.from(
          `--${complete.contentType.split('boundary=')[1]}\r\nContent-Disposition: form-data; name="${'n'.repeat(100_000)}"\r\n\r\nx\r\n--${complete.contentType.split('boundary=')[1]}--\r\n`,
        ),
      ),
    },
    { label: 'multipart audio without the closing boundary', bytes: request('/paas/v4/audio/transcriptions', [auth, multipart], truncated.payload) },
    {
      label: 'multipart audio cut in the middle, then the client closes',
      bytes: request('/paas/v4/audio/transcriptions', [auth, multipart], complete.payload.subarray(0, 150), { length: complete.payload.length }),
      halfClose: true,
      mayClose: true,
    },
    { label: 'multipart body sent to a JSON route', bytes: request(chatPath, [auth, multipart], complete.payload) },
    { label: 'JSON body sent to a multipart route', bytes: request('/paas/v4/files', [auth, json], validChat) },
  ];
}

/** Writes the bytes to 127.0.0.1:port and reads one answer; 'closed' when none came, 'timeout' when none came in time. */
export function sendRaw(port: number, bytes: Buffer, options: { endAfterWrite?: boolean; timeoutMs: number }): Promise<FuzzAnswer | 'closed' | 'timeout'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: '127.0.0.1', port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve('timeout');
    }, options.timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The server may answer and close before the whole request is written (EPIPE, ECONNRESET).
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseAnswer(Buffer.concat(chunks)) ?? 'closed');
    });
    socket.write(bytes, () => {
      if (options.endAfterWrite === true) socket.end();
    });
  });
}

/** The first HTTP response in the bytes (interim 100 Continue skipped), the body de-chunked. */
function parseAnswer(bytes: Buffer): FuzzAnswer | undefined {
  let rest = bytes;
  for (;;) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) return undefined;
    const [statusLine = '', ...headerLines] = rest.subarray(0, headEnd).toString('latin1').split('\r\n');
    const status = Number(statusLine.split(' ')[1]);
    const headers = new Map(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const body = rest.subarray(headEnd + 4);
    if (status === 100) {
      rest = body;
      continue;
    }
    return { status, contentType: headers.get('content-type') ?? '', body: headers.get('transfer-encoding') === 'chunked' ? dechunk(body) : body };
  }
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', offset);
    if (lineEnd < 0) break;
    const size = Number.parseInt(body.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}
