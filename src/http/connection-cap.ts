import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '../core/errors/api-error.ts';
import { rawErrorResponse } from './raw-error-response.ts';

/** How long a refused connection may stay open to read its answer before it is closed. */
const refusedLingerMs = 2000;

/**
 * Caps the connections one client address holds open at once. Connections are gated before the
 * HTTP server sees them: the server's own `connection` listeners are run only for admitted ones,
 * so a refused connection is never parsed. It is answered 429 (code 1305, retryable, in the
 * platform's body) and closed. Behind a proxy every client shares the proxy's address: leave the
 * cap off there (0) and cap at the proxy.
 */
export function capConnectionsPerAddress(server: Server, maxPerAddress: number): void {
  if (maxPerAddress <= 0) return;
  const open = new Map<string, number>();
  const serverListeners = server.listeners('connection') as ((this: Server, socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const address = clientAddress(socket);
    const count = open.get(address) ?? 0;
    if (count >= maxPerAddress) {
      refuse(socket, maxPerAddress);
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
    for (const listener of serverListeners) listener.call(server, socket);
  });
}

function refuse(socket: Socket, maxPerAddress: number): void {
  socket.on('error', () => socket.destroy());
  const error = new ApiError('1305', `Too many open connections from this address (at most ${maxPerAddress}); close some, then send the request again.`, {
    'retry-after': '1',
  });
  socket.end(rawErrorResponse(error));
  // What the client sends meanwhile is read and dropped, so the close is a FIN, not a reset that could discard the answer.
  socket.resume();
  socket.once('end', () => socket.destroy());
  socket.setTimeout(refusedLingerMs, () => socket.destroy());
}

/** IPv4 clients of a dual-stack listener appear as `::ffff:a.b.c.d`; one client, one key. */
function clientAddress(socket: Socket): string {
  const address = socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
}
