import type { FastifyReply } from 'fastify';

/**
 * A signal that fires when the client goes away before its answer is complete, so engine work
 * stops; one AbortController per request, aborted with 'the client closed the connection'.
 */
export function abortOnDisconnect(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.request.responseEnd.onEnd((complete) => {
    if (!complete) controller.abort(new Error('the client closed the connection'));
  });
  return controller.signal;
}
