import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PlatformMetrics } from '../core/metrics/platform-metrics.ts';
import type { App } from './app-types.ts';
import { routeOf } from './route-of.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** This process's metrics, for code that only has the request (the SSE writer's stream gauge). */
    metrics: PlatformMetrics;
  }
  interface FastifyContextConfig {
    /** false: the route's requests are not counted (the probes and the scrape itself). */
    countedInMetrics?: boolean;
  }
}

/** A client that leaves before its response is complete, as nginx logs it. */
export const clientClosedStatus = '499';

/**
 * Counts and times every request (http_requests_total, http_request_duration_seconds) by route
 * pattern, method, model and status. Installed before authentication's onRequest hook, so requests
 * refused by authentication or limits are counted too; measured when the response ends
 * (ResponseEnd), so a stream counts to its last event, and a client that left before the end
 * counts as 499.
 */
export function installRequestMetrics(app: App, metrics: PlatformMetrics): void {
  app.decorate('metrics', metrics);
  // A callback hook, not an async one: it awaits nothing, and a promise per request is overhead on every call.
  // One listener for every request (it is given the reply), not a closure per request.
  const observe = (complete: boolean, reply: FastifyReply) => {
    const status = complete ? String(reply.raw.statusCode) : clientClosedStatus;
    // Fastify times every reply from its start (elapsedTime, in ms).
    metrics.observeRequest(requestLabels(metrics, reply.request, status), reply.elapsedTime / 1000);
  };
  app.addHook('onRequest', (request, _reply, done) => {
    if (routeOf(request).config.countedInMetrics !== false) request.responseEnd.onEnd(observe);
    done();
  });
}

function requestLabels(metrics: PlatformMetrics, request: FastifyRequest, status: string) {
  const body = request.body;
  const model = body !== null && typeof body === 'object' ? (body as { model?: unknown }).model : undefined;
  return {
    // The pattern (`/paas/v4/async-result/:id`), never the raw URL, so ids do not become series.
    route: request.is404 ? 'unmatched' : (routeOf(request).url ?? 'unmatched'),
    method: request.method,
    model: metrics.modelLabel(model),
    status,
  };
}
