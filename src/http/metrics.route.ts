import { createHash, timingSafeEqual } from 'node:crypto';
import type { PlatformMetrics } from '../core/metrics/platform-metrics.ts';
import { prometheusContentType } from '../core/metrics/metric-registry.ts';
import { ApiError } from '../core/errors/api-error.ts';
import type { App } from './app-types.ts';

/**
 * GET /metrics in the Prometheus text format, this process's own (each node is scraped apart).
 * Open like the health probes, since scrapers rarely hold API keys; with
 * MODEL_PLATFORM_METRICS_TOKEN set it wants `Authorization: Bearer <token>`. Hidden from the
 * OpenAPI document: it is not part of the platform's API.
 */
export function registerMetricsRoute(app: App, metrics: PlatformMetrics): void {
  const token = metrics.scrapeToken;
  app.get('/metrics', { schema: { hide: true }, config: { public: true, countedInMetrics: false } }, async (request, reply) => {
    if (token !== undefined && !sameSecret(request.headers.authorization, `Bearer ${token}`)) {
      throw new ApiError('1000', 'GET /metrics needs "Authorization: Bearer <MODEL_PLATFORM_METRICS_TOKEN>".');
    }
    const text = await metrics.render((error) => request.log.warn({ err: error }, 'a metrics collector failed; its series keep their last values'));
    return reply.type(prometheusContentType).header('cache-control', 'no-store').send(text);
  });
}

/**
 * What `serve` says at start-up when /metrics answers anyone who can reach the port: no scrape
 * token, and a listening host other than loopback. The series name models, deployments and key
 * ids, no secrets; an operator who did not mean to publish them sets MODEL_PLATFORM_METRICS_TOKEN.
 */
export function openMetricsWarning(host: string, scrapeToken: string | undefined): string | undefined {
  if (scrapeToken !== undefined || loopbackHosts.has(host)) return undefined;
  return `GET /metrics is open to the network without a token (listening on ${host}): set MODEL_PLATFORM_METRICS_TOKEN to require "Authorization: Bearer <token>"`;
}

const loopbackHosts = new Set(['127.0.0.1', '::1', 'localhost']);

/** Compares digests, so the time taken does not tell how much of the token was right. */
function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
