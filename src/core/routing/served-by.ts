/** Which deployment answered a call, and the fallback model when the requested one could not. */
export interface ServedBy {
  readonly deployment: string;
  readonly fallbackModel?: string;
}

/**
 * Keyed by the request object a route hands to an engine capability (the same object passes the
 * concurrency limit and the router), so the route can name the deployment in its response
 * headers without the capability interfaces carrying it. Weak: it goes with the request.
 */
const servedByRequest = new WeakMap<object, ServedBy>();

export function recordServedBy(request: object, servedBy: ServedBy): void {
  servedByRequest.set(request, servedBy);
}

/** What served `request`; undefined before it is answered (or for engines the router never saw). */
export function servedByOf(request: object): ServedBy | undefined {
  return servedByRequest.get(request);
}
