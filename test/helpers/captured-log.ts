import { Writable } from 'node:stream';
import { createLogger, type PlatformLogger } from '../../src/platform/create-logger.ts';

/** One parsed pino line: `level` (30 info, 40 warn, 50 error), `msg`, and its fields. */
export type LogLine = Record<string, unknown> & { readonly level: number; readonly msg: string };

export interface CapturedLog {
  /** The platform's logger (createLogger), writing into `lines` instead of stdout. */
  readonly logger: PlatformLogger;
  /** Every line written so far, parsed; a line that is not JSON fails the write. */
  readonly lines: LogLine[];
  /** Everything written, as written (to look for what must never be logged). */
  text(): string;
  /** The first line that `matches`, waited for up to `timeoutMs`. */
  waitFor(matches: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
}

/** A logger made as the platform makes its own, at `level`, whose lines the test reads. */
export function captureLog(level = 'info'): CapturedLog {
  const lines: LogLine[] = [];
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return {
    logger: createLogger({ LOG_LEVEL: level }, stream),
    lines,
    text: () => text,
    async waitFor(matches, timeoutMs = 5_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const found = lines.find(matches);
        if (found !== undefined) return found;
        if (Date.now() > until) throw new Error(`no log line matched within ${timeoutMs} ms; lines: ${JSON.stringify(lines)}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };
}
