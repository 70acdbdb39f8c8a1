/**
 * The part of a pino logger the platform's parts write through: pino's logger and Fastify's
 * `app.log` both fit, and the parts stay free of either. Lines are JSON; `fields` are merged into
 * the line, an `err` field is serialised as an error (type, message with its causes, stack).
 */
export interface Logger {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
  debug(fields: object, message: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

/** How a background part (a sweeper, a batch writer, a worker) reports a failure it survives. */
export type FailureLog = (message: string, error?: unknown) => void;

/** A FailureLog that writes one line at `level` to `logger`, with the error as `err`. */
export function failureLog(logger: Logger, level: 'error' | 'warn' = 'error'): FailureLog {
  return (message, error) => logger[level](error === undefined ? {} : { err: error }, message);
}
