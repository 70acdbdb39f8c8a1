/** Which deployment answered a call, and the fallback model when the requested one could not. */
export interface ServedBy {
  readonly deployment: string;
  readonly fallbackModel?: string;
}

/**
 * Keyed by the signal a route gives its engine calls (one per client request), so the route can
 * name the deployment in its response headers without the capability interfaces carrying it, and
 * whether it built the engine request itself or a helper did (image generation, token counting).
 * Each answered call replaces the entry: a route that calls a search engine before its chat
 * engine names the chat deployment. Weak: it goes with the request.
 */
const servedBySignal = new WeakMap<AbortSignal, ServedBy>();

export function recordServedBy(signal: AbortSignal, servedBy: ServedBy): void {
  servedBySignal.set(signal, servedBy);
}

/** What served the last answered call made with `signal`; undefined before one is answered (or for engines the router never saw). */
export function servedByOf(signal: AbortSignal): ServedBy | undefined {
  return servedBySignal.get(signal);
}
