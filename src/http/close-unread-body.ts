import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from './app-types.ts';

/** How long a closed connection still drains what the client was sending, so that its answer is read before the socket goes. */
const drainBeforeDestroyMs = 500;

/**
 * A request answered before its body was read (refused by authentication, admission, a size
 * check or a handler that stopped early) ends its connection: the answer says
 * `Connection: close`, and once it is written the socket is half-closed and then destroyed.
 * Otherwise Node keeps reading the rest of the body to reuse the connection, and a client
 * without a key could hold a socket until the request timeout by trickling a body. The short
 * drain keeps the kernel from answering unread bytes with a reset that would lose the answer.
 */
export function installCloseUnreadBody(app: App): void {
  app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    if (request.raw.complete === false && !reply.raw.headersSent) {
      reply.header('connection', 'close');
      const socket = request.raw.socket;
      reply.raw.once('finish', () => {
        socket.end();
        setTimeout(() => socket.destroy(), drainBeforeDestroyMs).unref();
      });
    }
    done(null, payload);
  });
}
