import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { platformTracer } from '../core/telemetry/tracing.ts';
import type { App } from './app-types.ts';
import { clientClosedStatus } from './request-metrics.ts';
import { routeOf } from './route-of.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request span's context while tracing is on (installRequestTracing), else undefined. */
    traceContext: Context | undefined;
  }
}

/** A caller's model name is cut to this length on the span, as in the request's log line. */
const maxModelLength = 128;

/**
 * One server span per request while tracing is on, named `<method> <route pattern>`, from its
 * first hook to the end of its response (a stream's last event, or the client leaving: 499): the
 * status, the platform error code, the model the body names and the key id. A caller's W3C
 * `traceparent` makes it part of the caller's trace. The span's context is made current again at
 * the stages that follow the reading of the body (the HTTP parser's events do not carry it), so
 * admission, the handler and everything they start (engine calls, queries, tasks, blobs, log
 * lines) are its children. Without tracing nothing is installed.
 */
export function installRequestTracing(app: App): void {
  const tracer = platformTracer();
  if (tracer === undefined) return;
  app.decorateRequest('traceContext', undefined);
  app.addHook('onRequest', (request, reply, done) => {
    const requestContext = startRequestSpan(tracer, request, reply);
    request.traceContext = requestContext;
    context.with(requestContext, done);
  });
  const enter = (request: FastifyRequest, _reply: FastifyReply, done: () => void) =>
    request.traceContext === undefined ? done() : context.with(request.traceContext, done);
  app.addHook('preValidation', enter);
  app.addHook('preHandler', enter);
}

function startRequestSpan(tracer: Tracer, request: FastifyRequest, reply: FastifyReply): Context {
  const route = request.is404 ? undefined : routeOf(request).url;
  const parent = propagation.extract(ROOT_CONTEXT, request.headers);
  const span = tracer.startSpan(
    route === undefined ? request.method : `${request.method} ${route}`,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': request.method,
        'http.route': route ?? 'unmatched',
        'url.scheme': request.protocol,
        'network.protocol.version': request.raw.httpVersion,
      },
    },
    parent,
  );
  request.responseEnd.onEnd((complete) => endRequestSpan(span, request, reply, complete));
  return trace.setSpan(parent, span);
}

function endRequestSpan(span: Span, request: FastifyRequest, reply: FastifyReply, complete: boolean): void {
  const status = complete ? reply.raw.statusCode : Number(clientClosedStatus);
  span.setAttribute('http.response.status_code', status);
  if (request.requestId !== '') span.setAttribute('model_platform.request_id', request.requestId);
  if (request.apiKey !== undefined) span.setAttribute('model_platform.key_id', request.apiKey.id);
  const model = (request.body as { model?: unknown } | null | undefined)?.model;
  if (typeof model === 'string') span.setAttribute('gen_ai.request.model', model.slice(0, maxModelLength));
  if (request.errorCode !== undefined) span.setAttribute('model_platform.error_code', request.errorCode);
  if (!complete) span.setAttribute('model_platform.client_left', true);
  // Server spans fail on 5xx only: a 4xx is the caller's mistake, answered as designed.
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, ...(request.errorCode === undefined ? {} : { message: request.errorCode }) });
  span.end();
}
