import { invalidField } from '../../core/errors/api-error.ts';
import { maxReaderTimeoutSeconds, type ReaderRequest } from './reader.schema.ts';

/** The reader rules JSON Schema cannot state: a fetchable URL, and the range of a string timeout. */
export function checkReaderRequest(body: ReaderRequest): void {
  if (!isAbsoluteHttpUrl(body.url)) {
    throw invalidField('url', 'must be an absolute http or https URL');
  }
  const timeout = readerTimeoutSeconds(body);
  if (timeout !== undefined && !(timeout > 0 && timeout <= maxReaderTimeoutSeconds)) {
    throw invalidField('timeout', `must be greater than 0 and at most ${maxReaderTimeoutSeconds} seconds`);
  }
}

/** The timeout in seconds, whether it came as a number or a numeric string. */
export function readerTimeoutSeconds(body: Pick<ReaderRequest, 'timeout'>): number | undefined {
  return body.timeout === undefined ? undefined : Number(body.timeout);
}

function isAbsoluteHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}
