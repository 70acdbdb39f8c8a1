import { errorCatalogue, type ErrorCode } from '../../src/core/errors/error-catalogue.ts';

/** An answer as the fuzzer saw it, from app.inject or from a real socket. */
export interface FuzzAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
}

/**
 * What is wrong with an answer, or undefined when it is acceptable: an error status must come in
 * the platform body `{"error":{"code":"<digits>","message":"<text>"}}` with the catalogue's status
 * for that code, a 5xx only with a code in `allowedServerErrors`, and a 2xx must be valid JSON or
 * a well-framed event stream (each event one `data:` line, ending with `data: [DONE]`).
 */
export function answerProblem(answer: FuzzAnswer, allowedServerErrors: ReadonlySet<string>): string | undefined {
  if (answer.status >= 400) return errorProblem(answer, allowedServerErrors);
  if (answer.status < 200 || answer.status > 299) return `unexpected status ${answer.status}`;
  if (answer.contentType.startsWith('text/event-stream')) return streamProblem(answer.body.toString('utf8'));
  if (answer.contentType.startsWith('application/json')) {
    try {
      JSON.parse(answer.body.toString('utf8'));
    } catch {
      return 'a 2xx JSON answer that does not parse';
    }
  }
  return undefined;
}

function errorProblem(answer: FuzzAnswer, allowedServerErrors: ReadonlySet<string>): string | undefined {
  if (!answer.contentType.startsWith('application/json')) return `error status ${answer.status} with content type '${answer.contentType}'`;
  let body: unknown;
  try {
    body = JSON.parse(answer.body.toString('utf8'));
  } catch {
    return `error status ${answer.status} with a body that is not JSON`;
  }
  const record = body as { error?: { code?: unknown; message?: unknown } } | null;
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return 'the error body is not an object';
  const keys = Object.keys(record).filter((key) => key !== 'contentFilter');
  if (keys.length !== 1 || keys[0] !== 'error') return `the error body has the keys ${JSON.stringify(Object.keys(record))}`;
  const error = record.error;
  if (error === null || typeof error !== 'object') return 'error is not an object';
  if (JSON.stringify(Object.keys(error).sort()) !== '["code","message"]') return `error has the keys ${JSON.stringify(Object.keys(error))}`;
  if (typeof error.code !== 'string' || !/^[0-9]+$/.test(error.code)) return `error.code ${JSON.stringify(error.code)} is not a string of digits`;
  if (typeof error.message !== 'string') return 'error.message is not a string';
  const entry = Object.hasOwn(errorCatalogue, error.code) ? errorCatalogue[error.code as ErrorCode] : undefined;
  if (entry === undefined) return `code ${error.code} is not in the catalogue`;
  if (entry.status !== answer.status) return `code ${error.code} came with status ${answer.status}, the catalogue says ${entry.status}`;
  if (answer.status >= 500 && !allowedServerErrors.has(error.code)) return `a ${answer.status} (code ${error.code}): ${error.message}`;
  return undefined;
}

function streamProblem(text: string): string | undefined {
  if (!text.endsWith('data: [DONE]\n\n')) return `the event stream does not end with data: [DONE]: ${JSON.stringify(text.slice(-200))}`;
  const events = text.slice(0, -2).split('\n\n');
  for (const event of events) {
    if (!event.startsWith('data: ') || event.includes('\n')) return `an event that is not one data: line: ${JSON.stringify(event.slice(0, 200))}`;
    const data = event.slice('data: '.length);
    if (data === '[DONE]') continue;
    try {
      JSON.parse(data);
    } catch {
      return `an event whose data is not JSON: ${JSON.stringify(data.slice(0, 200))}`;
    }
  }
  return undefined;
}
