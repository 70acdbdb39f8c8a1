import type { FastifyReply } from 'fastify';
import { servedByOf } from '../core/routing/served-by.ts';

export const deploymentHeader = 'x-model-platform-deployment';
export const fallbackModelHeader = 'x-model-platform-fallback-model';

/**
 * Names the deployment (and the fallback model) that answered `engineRequest` in the response
 * headers. Set on the raw response, so it goes out with an event stream's headers too.
 */
export function setServedByHeaders(reply: FastifyReply, engineRequest: object): void {
  const servedBy = servedByOf(engineRequest);
  if (servedBy === undefined || reply.raw.headersSent) return;
  reply.raw.setHeader(deploymentHeader, servedBy.deployment);
  if (servedBy.fallbackModel !== undefined) reply.raw.setHeader(fallbackModelHeader, servedBy.fallbackModel);
}

/**
 * The stream with the headers set as its first part arrives: the router has committed to a
 * deployment by then, and the relay sends the headers only after that part.
 */
export async function* withServedByHeaders<Part>(parts: AsyncIterable<Part>, reply: FastifyReply, engineRequest: object): AsyncGenerator<Part> {
  let first = true;
  for await (const part of parts) {
    if (first) {
      first = false;
      setServedByHeaders(reply, engineRequest);
    }
    yield part;
  }
}
