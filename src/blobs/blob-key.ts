/** One path segment: starts with a letter, digit or underscore (so never `.` or `..`), then a safe set. */
const segmentPattern = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

/**
 * Whether `key` is a blob key the stores accept: segments joined by `/`, each from a small safe
 * alphabet. Keys become file paths on local disk and URL paths, so nothing that could climb out
 * of the blob folder (`..`, absolute paths, backslashes, NUL) or need escaping gets through.
 */
export function isValidBlobKey(key: string): boolean {
  if (key.length === 0 || key.length > 512) return false;
  return key.split('/').every((segment) => segmentPattern.test(segment));
}

export function assertBlobKey(key: string): void {
  if (!isValidBlobKey(key)) throw new Error(`invalid blob key '${key.slice(0, 100)}'`);
}
