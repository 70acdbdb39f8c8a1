import type { FastifyReply } from 'fastify';
import { servedByOf } from '../core/routing/served-by.ts';

export const deploymentHeader = 'x-model-platform-deployment';
export const fallbackModelHeader = 'x-model-platform-fallback-model';

/**
 * Names the deployment (and the fallback model) that answered the engine call made with `signal`
 * (the route's abortOnDisconnect) in the response headers. Set on the reply, whose headers an
 * event stream sends too (SseWriter), not on the raw response: one header set there sends every
 * other header of the response through Node's per-header checks as well.
 */
export function setServedByHeaders(reply: FastifyReply, signal: AbortSignal): void {
  const servedBy = servedByOf(signal);
  if (servedBy === undefined || reply.raw.headersSent) return;
  reply.header(deploymentHeader, servedBy.deployment);
  if (servedBy.fallbackModel !== undefined) reply.header(fallbackModelHeader, servedBy.fallbackModel);
}

/**
 * The stream with the headers set as its first part arrives: the router has committed to a
 * deployment by then, and the relay sends the headers only after that part. Later parts are read
 * straight from `parts`, with no layer of their own.
 */
export function withServedByHeaders<Part>(parts: AsyncIterable<Part>, reply: FastifyReply, signal: AbortSignal): AsyncIterableIterator<Part> {
  const iterator = parts[Symbol.asyncIterator]();
  let first = true;
  return {
    next() {
      if (!first) return iterator.next();
      first = false;
      return iterator.next().then((step) => {
        if (step.done !== true) setServedByHeaders(reply, signal);
        return step;
      });
    },
    return: async (value?: unknown) => (await iterator.return?.(value)) ?? { done: true, value: undefined },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
