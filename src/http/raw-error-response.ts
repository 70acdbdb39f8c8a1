import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ApiError } from '../core/errors/api-error.ts';
import { generateRequestId } from './request-id.ts';

/**
 * The bytes of a complete HTTP/1.1 answer carrying `error` in the platform's body, for the places
 * that answer on the socket itself, where no Fastify reply exists: a request the HTTP parser
 * refused, a request that timed out, a connection over the per-address cap. `Connection: close`:
 * the connection ends after it. It has a request id, like every answer.
 */
export function rawErrorResponse(error: ApiError): string {
  const body = JSON.stringify(error.toBody());
  const lines = [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}`,
    `x-request-id: ${generateRequestId()}`,
    ...Object.entries(error.headers).map(([name, value]) => `${name}: ${value}`),
    ...(error.retryable ? [] : ['x-should-retry: false']),
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/**
 * Answers `error` on the socket and closes it, unless an answer has begun on it already (then the
 * socket is only closed: bytes written into a response would corrupt it for the client).
 */
export function answerOnSocket(socket: Socket, error: ApiError): void {
  // A parser in its error state reports the same error again for each later chunk of data.
  if (socket.destroyed || answered.has(socket)) return;
  answered.add(socket);
  if (socket.writable && !responseStarted(socket)) {
    socket.end(rawErrorResponse(error));
    // The answer is flushed before the close; a client that never reads it does not hold the socket.
    socket.setTimeout(1000, () => socket.destroy());
    socket.once('finish', () => socket.destroy());
    return;
  }
  socket.destroy();
}

const answered = new WeakSet<Socket>();

/** Whether the HTTP server has written a response's headers on this socket (Node keeps the response in flight as `_httpMessage`). */
function responseStarted(socket: Socket): boolean {
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  return inFlight?.headersSent === true;
}
