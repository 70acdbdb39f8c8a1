import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { ApiError } from '../core/errors/api-error.ts';
import { answerOnSocket } from './raw-error-response.ts';

/**
 * Closes a connection whose request body stops arriving: no byte for `idleMs` while the body is
 * incomplete is answered 408 in the platform's body. Only the body's arrival is watched: once the
 * request is complete, the answer may take as long as the engine does (a long stream, a slow sync
 * call), which a socket-wide idle timeout would cut. A pause that is the server's own (the body
 * waits unread while a hook runs, or an upload is held back while storage catches up) is not the
 * client's: the data waiting in the request stream shows it.
 */
export function watchBodyIdle(server: Server, idleMs: number): void {
  if (idleMs <= 0) return;
  const checkEveryMs = Math.max(50, Math.floor(idleMs / 4));
  // A request is announced when its headers are parsed, before a body that came in the same read
  // is: whether the body is still incomplete is asked once that read is parsed, for every request
  // of it together. Most bodies are whole by then, and need no timer of their own.
  let arrived: ServerResponse[] = [];
  const watchIncomplete = () => {
    const responses = arrived;
    arrived = [];
    for (const response of responses) watch(response.req, response, idleMs, checkEveryMs);
  };
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (request.complete || !announcesBody(request)) return;
    // Not process.nextTick: the parser's callbacks run the tick queue as each returns, before the body's bytes are parsed.
    if (arrived.push(response) === 1) setImmediate(watchIncomplete);
  });
}

/** Watches one request whose body is still arriving, until it is complete or its response is over. */
function watch(request: IncomingMessage, response: ServerResponse, idleMs: number, checkEveryMs: number): void {
  if (request.complete || response.writableEnded || request.socket.destroyed) return;
  const socket = request.socket;
  let bytesSeen = socket.bytesRead;
  let lastProgressAt = Date.now();
  const timer = setInterval(() => {
    if (request.complete || socket.destroyed) {
      clearInterval(timer);
      return;
    }
    const bytesRead = socket.bytesRead;
    if (bytesRead !== bytesSeen || request.readableLength > 0) {
      bytesSeen = bytesRead;
      lastProgressAt = Date.now();
      return;
    }
    if (Date.now() - lastProgressAt < idleMs) return;
    clearInterval(timer);
    answerOnSocket(socket, new ApiError('408', `The request body stopped arriving: nothing came for ${formatSeconds(idleMs)}. Send the request again.`));
  }, checkEveryMs);
  // Keeps no process alive, and goes with the response.
  timer.unref();
  response.once('close', () => clearInterval(timer));
}

function announcesBody(request: IncomingMessage): boolean {
  if (request.headers['transfer-encoding'] !== undefined) return true;
  const length = request.headers['content-length'];
  return length !== undefined && length !== '0';
}

function formatSeconds(milliseconds: number): string {
  return `${Number((milliseconds / 1000).toFixed(3))} s`;
}
