import { ApiError } from './api-error.ts';

/**
 * The ways storage can fail that are the server's condition, not the caller's fault: the local
 * disk (or the database on it) is full or read-only, or the object store does not answer or is full.
 */
export type StorageCondition = 'full' | 'read-only' | 'object store unavailable' | 'object store full';

/**
 * 503 with a message that names the condition and nothing else: no path, no stack, no upstream
 * text. 503 ("unavailable for now") rather than 500 ("a fault"): nothing is wrong with the request
 * and the same call succeeds once space is freed or the store answers again, so clients retry it
 * and /readyz takes the node out of rotation meanwhile. The original error stays as `cause` for
 * whoever logs it.
 */
export function storageFailure(condition: StorageCondition, cause: unknown, detail?: string): ApiError {
  const error = new ApiError('503', messages[condition](detail));
  Object.defineProperty(error, 'cause', { value: cause, enumerable: false, configurable: true, writable: true });
  return error;
}

const messages: Readonly<Record<StorageCondition, (detail: string | undefined) => string>> = {
  full: () => "The server's storage is full, so nothing was stored; try again once space has been freed.",
  'read-only': () => "The server's storage is read-only, so nothing can be stored or removed; try again later.",
  'object store unavailable': (detail) => `The object store is unavailable${detail === undefined ? '' : ` (${detail})`}; try again later.`,
  'object store full': () => 'The object store is full, so nothing was stored; try again once space has been freed.',
};

/**
 * The condition of a local file-system error: ENOSPC (no space) and EDQUOT (quota) are a full
 * disk, EROFS a read-only one; anything else is not a storage condition.
 */
function diskCondition(error: unknown): 'full' | 'read-only' | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'full';
  if (code === 'EROFS') return 'read-only';
  return undefined;
}

/** `error` as a storage failure when it is a full or read-only disk; otherwise unchanged. */
export function asDiskFailure(error: unknown): unknown {
  const condition = diskCondition(error);
  return condition === undefined ? error : storageFailure(condition, error);
}
