import type { Socket } from 'node:net';
import { ApiError } from '../core/errors/api-error.ts';
import { answerOnSocket } from './raw-error-response.ts';

/** Node's limit on the request line and headers together (`--max-http-header-size`, 16 KiB unless set). */
const maxHeaderBytes = 16 * 1024;

/**
 * Node's `clientError`: the HTTP parser refused what the client sent (malformed request line or
 * header, bad chunked encoding, an invalid Content-Length, headers over the limit), or the client
 * did not send its request in time. The answer is the platform's error body with the catalogue's
 * status, written on the socket, and the connection is closed; Node's and Fastify's own answers
 * here have bodies of their own shape. Nothing the client sent is quoted.
 */
export function handleClientError(error: Error & { code?: string; reason?: unknown }, socket: Socket): void {
  // A reset connection has no one left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  answerOnSocket(socket, clientErrorToApiError(error));
}

function clientErrorToApiError(error: Error & { code?: string; reason?: unknown }): ApiError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('408', 'The request was not received in time: its headers or its body came too slowly. Send it again.');
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('431', `The request line and headers exceed ${maxHeaderBytes} bytes (a URL that long does not fit either).`);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new ApiError('1210', 'The chunked request body has chunk extensions that are too large.');
    case 'HPE_INVALID_METHOD':
      return new ApiError('1210', 'The request is not valid HTTP/1.1: unknown method.');
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return new ApiError('1210', 'The request is not valid HTTP/1.1: bad chunked encoding.');
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return new ApiError('1210', 'The request is not valid HTTP/1.1: invalid Content-Length (or both Content-Length and Transfer-Encoding).');
    default:
      return new ApiError('1210', `The request is not valid HTTP/1.1: ${parserReason(error)}.`);
  }
}

/** llhttp's reason ("Invalid header value char"): a fixed text of the parser, never the client's bytes. */
function parserReason(error: { reason?: unknown }): string {
  const reason = typeof error.reason === 'string' ? error.reason : '';
  return /^[A-Za-z0-9 ,.'-]{1,80}$/.test(reason) ? reason.replace(/\.$/, '').toLowerCase() : 'malformed request';
}
