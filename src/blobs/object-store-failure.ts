import { ApiError } from '../core/errors/api-error.ts';
import { storageFailure } from '../core/errors/storage-failure.ts';

/** Node and undici codes of a connection that could not be made or broke off. */
const connectionFailures = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

interface SdkError {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly errors?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: number };
}

/**
 * An S3 client error as the caller should see it: a store that is down (refused or broken
 * connection, a time-out, any 5xx) becomes "the object store is unavailable", one that is out of
 * space (507, MinIO's XMinioStorageFull) "the object store is full", both 503 and neither quoting
 * the store's address or answer. Everything else (a 404, a refused credential, our own abort) is
 * returned unchanged for the caller to handle or log.
 */
export function objectStoreFailure(error: unknown): unknown {
  if (error instanceof ApiError || typeof error !== 'object' || error === null) return error;
  const candidate = error as SdkError;
  const status = candidate.$metadata?.httpStatusCode;
  if (status === 507 || candidate.name === 'XMinioStorageFull') return storageFailure('object store full', error);
  if (status !== undefined && status >= 500) return storageFailure('object store unavailable', error, `it answered HTTP ${status}`);
  if (status !== undefined && status > 0) return error;
  if (candidate.name === 'AbortError') return error;
  if (candidate.name === 'TimeoutError') return storageFailure('object store unavailable', error, 'it did not answer in time');
  const code = connectionCode(error);
  if (code !== undefined) return storageFailure('object store unavailable', error, code);
  return error;
}

/** The connection failure code of an error, or of the first of an AggregateError's (both addresses of localhost refused). */
function connectionCode(error: unknown): string | undefined {
  const candidate = error as SdkError | null;
  if (typeof candidate?.code === 'string' && connectionFailures.has(candidate.code)) return candidate.code;
  if (Array.isArray(candidate?.errors)) {
    for (const inner of candidate.errors) {
      const code = connectionCode(inner);
      if (code !== undefined) return code;
    }
  }
  return undefined;
}
