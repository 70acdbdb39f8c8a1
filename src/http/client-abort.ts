import type { FastifyReply } from 'fastify';

/**
 * A signal that fires when the client goes away before its answer is complete, so engine work
 * stops: the request's one signal (ResponseEnd.clientLeftSignal), aborted with 'the client
 * closed the connection'.
 */
export function abortOnDisconnect(reply: FastifyReply): AbortSignal {
  return reply.request.responseEnd.clientLeftSignal();
}
