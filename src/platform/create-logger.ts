import pino from 'pino';

/** The process's logger; Fastify takes it as the app's logger, so requests and background work share one stream. */
export type PlatformLogger = pino.Logger;

/**
 * JSON lines at LOG_LEVEL (default info) on stdout, or on `destination` (tests read the lines).
 * The Authorization header is redacted wherever a request is logged whole.
 */
export function createLogger(environment: NodeJS.ProcessEnv, destination?: pino.DestinationStream): PlatformLogger {
  const options = { level: environment['LOG_LEVEL']?.trim() || 'info', redact: ['req.headers.authorization'] };
  return destination === undefined ? pino(options) : pino(options, destination);
}
