/**
 * What an engine call needs of its abort signal: an AbortSignal, or a lighter source (the chat
 * route's, src/http/client-abort.ts) whose listeners are a plain list and which makes a real
 * AbortSignal only when some code asks for one (`toAbortSignal`): creating a signal and
 * subscribing to it cost ~4 µs and 1 KB of garbage per request.
 */
export type AbortSource = AbortSignal | LazyAbortSignal;

/** The part of AbortSignal engine calls use, and a real AbortSignal made on first use. */
export interface LazyAbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { readonly once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
  throwIfAborted(): void;
  readonly signal: AbortSignal;
}

/** Why a source aborted: its reason when that is an Error, else the standard AbortError. */
export function abortReason(signal: AbortSource): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The request was aborted.', 'AbortError');
}

/** The AbortSignal of a source: the source itself when it is one. */
export function toAbortSignal(source: AbortSource): AbortSignal {
  return source instanceof AbortSignal ? source : source.signal;
}
