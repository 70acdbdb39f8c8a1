import type { ErrorCode } from '../errors/error-catalogue.ts';

/**
 * Thrown by a TaskHandler when the same task may succeed if run again (an engine restarting, a
 * queue full upstream). The task engine retries it with backoff; when no attempt is left, the task
 * fails with this error's code and message. An ApiError whose catalogue entry is retryable (500,
 * 1230, 1234, 1302, 1303, 1305, 1100) is retried the same way.
 */
export class RetryableTaskError extends Error {
  readonly code: ErrorCode;

  constructor(message: string, options: { code?: ErrorCode; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RetryableTaskError';
    this.code = options.code ?? '1230';
  }
}
