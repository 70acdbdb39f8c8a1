/**
 * What a failed engine request says happened, from its innermost cause (ECONNREFUSED, ENOTFOUND, a
 * connection closed early): undici wraps the socket's error, and an AggregateError holds one per
 * address tried.
 */
export function connectionDetail(error: unknown): string {
  let current: unknown = error;
  let detail = 'unknown error';
  while (current instanceof Error) {
    const code = (current as { code?: unknown }).code;
    const message = current.message !== '' ? current.message : typeof code === 'string' ? code : detail;
    detail = typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
    const nested = current instanceof AggregateError ? current.errors[0] : undefined;
    current = current.cause ?? nested;
  }
  return detail;
}
