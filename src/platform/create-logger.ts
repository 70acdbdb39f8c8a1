import pino from 'pino';
import { platformTracer, traceLogFields } from '../core/telemetry/tracing.ts';

/** The process's logger; Fastify takes it as the app's logger, so requests and background work share one stream. */
export type PlatformLogger = pino.Logger;

/**
 * JSON lines at LOG_LEVEL (default info) on stdout, or on `destination` (tests read the lines).
 * The Authorization header is redacted wherever a request is logged whole. While tracing is on
 * (started before the logger is made), a line written inside a trace carries its `trace_id` and
 * `span_id`; without tracing no line pays for the lookup.
 */
export function createLogger(environment: NodeJS.ProcessEnv, destination?: pino.DestinationStream): PlatformLogger {
  const options: pino.LoggerOptions = { level: environment['LOG_LEVEL']?.trim() || 'info', redact: ['req.headers.authorization'] };
  if (platformTracer() !== undefined) options.mixin = () => traceLogFields() ?? {};
  return destination === undefined ? pino(options) : pino(options, destination);
}
