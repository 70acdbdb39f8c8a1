import type { FastifyReply } from 'fastify';

/** A signal that fires when the client goes away before its answer is complete, so engine work stops. */
export function abortOnDisconnect(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('the client closed the connection'));
  });
  return controller.signal;
}
