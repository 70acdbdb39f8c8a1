/** Why a signal aborted, as an Error to reject or throw with: its reason when that is one, else the standard AbortError. */
export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The request was aborted.', 'AbortError');
}
