import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { traceLogFields } from '../core/telemetry/tracing.ts';
import type { App } from './app-types.ts';
import { levelEnabled } from './request-logger.ts';
import { clientClosedStatus } from './request-metrics.ts';
import { routeOf } from './route-of.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The platform error code of the answer, once one is sent (in the body, or in band on a stream). */
    errorCode: string | undefined;
  }
}

/** A caller's model name is cut to this length in the line (an unknown one is logged too). */
const maxModelLength = 128;

/**
 * One info line per request, in place of Fastify's two ("incoming request", "request
 * completed"), written when the response ends (ResponseEnd: a stream at its last event): the
 * method, route pattern, model (when the body names one), key id (never the secret), status,
 * platform error code (when the answer is an error), duration and request_id. A client that left
 * before its answer was complete gets status 499 and "client closed the connection", at info:
 * that is the client's choice, not the server's failure. Nothing is built when info is off.
 */
export function installRequestLogLine(app: App): void {
  app.decorateRequest('errorCode', undefined);
  // A callback hook: it awaits nothing, and runs on every request.
  // One listener for every request (it is given the reply), not a closure per request.
  const write = (complete: boolean, reply: FastifyReply) => writeLine(app, reply.request, reply, complete);
  app.addHook('onRequest', (request, _reply, done) => {
    if (levelEnabled(app.log, 'info')) request.responseEnd.onEnd(write);
    done();
  });
}

/**
 * Fastify's log controller without its own two lines per request (the request's line replaces
 * them); its other lines (a stream that broke after its headers, a serializer failure) stay.
 */
export class RequestLineLogController extends LogController {
  override incomingRequest(): void {
    // Replaced by the request's line.
  }

  override requestCompleted(): void {
    // Replaced by the request's line.
  }
}

function writeLine(app: App, request: FastifyRequest, reply: FastifyReply, complete: boolean): void {
  const fields: Record<string, unknown> = {
    // Through the app's logger with the id as a field: a child logger per request would cost more than the line.
    request_id: request.requestId === '' ? request.id : request.requestId,
    method: request.method,
    route: request.is404 ? 'unmatched' : (routeOf(request).url ?? 'unmatched'),
    status: complete ? reply.raw.statusCode : Number(clientClosedStatus),
    duration_ms: Math.round(reply.elapsedTime),
  };
  const model = modelOf(request.body);
  if (model !== undefined) fields['model'] = model;
  if (request.apiKey !== undefined) fields['key_id'] = request.apiKey.id;
  if (request.errorCode !== undefined) fields['code'] = request.errorCode;
  // Written when the response ends, outside the request's context: its trace is named here.
  if (request.traceContext !== undefined) Object.assign(fields, traceLogFields(request.traceContext));
  app.log.info(fields, complete ? 'request completed' : 'client closed the connection');
}

function modelOf(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const model = (body as { model?: unknown }).model;
  return typeof model === 'string' ? model.slice(0, maxModelLength) : undefined;
}
