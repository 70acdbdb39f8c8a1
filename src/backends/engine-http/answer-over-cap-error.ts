/**
 * An engine sent more than a cap allows: a whole answer or error body over `maxResponseBytes`, one
 * server-sent event over its cap, or too many stream events in a row that carry nothing. The call
 * that met it fails; the connection it came on is closed, so nothing of it reaches another call.
 */
export class AnswerOverCapError extends Error {
  /** What was capped, in words a message can use ("the answer body", "one stream event"…). */
  readonly what: string;
  readonly limit: number;
  /** The unit of `limit`: bytes, or events. */
  readonly unit: 'bytes' | 'events';
  /** The setting that raises the cap, when one does. */
  readonly setting: string | undefined;

  constructor(what: string, limit: number, unit: 'bytes' | 'events', setting?: string) {
    super(`${what} is over its cap of ${describeLimit(limit, unit)}${setting === undefined ? '' : ` (${setting})`}`);
    this.name = 'AnswerOverCapError';
    this.what = what;
    this.limit = limit;
    this.unit = unit;
    this.setting = setting;
  }
}

function describeLimit(limit: number, unit: 'bytes' | 'events'): string {
  if (unit === 'events') return `${limit} events`;
  const mebibytes = limit / (1024 * 1024);
  return Number.isInteger(mebibytes) ? `${mebibytes} MiB` : `${limit} bytes`;
}
