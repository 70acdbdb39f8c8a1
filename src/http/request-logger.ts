import type { FastifyBaseLogger } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;

/** pino's level numbers; a level name it does not know is treated as enabled. */
const levelValues: Readonly<Record<string, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/**
 * A request's logger (`request.log`) that becomes a real child of the app's logger only when a
 * line at an enabled level is written: most requests write none, and a pino child serialises its
 * bindings as it is made, work wasted on every request that logs nothing.
 */
class RequestLogger implements FastifyBaseLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings) {
    this.#parent = parent;
    this.#bindings = bindings;
  }

  get level(): string {
    return (this.#child ?? this.#parent).level;
  }

  set level(level: string) {
    this.#logger().level = level;
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }

  error(...args: unknown[]): void {
    this.#write('error', args);
  }

  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }

  info(...args: unknown[]): void {
    this.#write('info', args);
  }

  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }

  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger().child(bindings, options);
  }

  /** The same request's logger with other bindings in place of these, made as lazily. */
  rebound(bindings: Bindings): RequestLogger {
    return new RequestLogger(this.#parent, bindings);
  }

  #write(level: Level, args: unknown[]): void {
    if (!levelEnabled(this, level)) return;
    (this.#logger()[level] as (...line: unknown[]) => void)(...args);
  }

  #logger(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings);
    return this.#child;
  }
}

/** Whether `logger` writes lines at `level` (read from its level name: cheaper than making the line). */
export function levelEnabled(logger: FastifyBaseLogger, level: Level): boolean {
  const threshold = levelValues[logger.level];
  return threshold === undefined || (levelValues[level] as number) >= threshold;
}

/** Fastify's per-request child logger, made lazily (a route's own level or serializers get a real child at once). */
export const lazyRequestLogger = (logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger =>
  options.level !== undefined || options.serializers !== undefined ? logger.child(bindings, options) : new RequestLogger(logger, bindings);

/** A request's logger with other bindings (a client's request_id in place of the generated one), made as lazily. */
export function rebind(logger: FastifyBaseLogger, bindings: Bindings): FastifyBaseLogger {
  return logger instanceof RequestLogger ? logger.rebound(bindings) : logger.child(bindings);
}
