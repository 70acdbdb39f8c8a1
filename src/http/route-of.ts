import type { FastifyRequest } from 'fastify';

type RouteOptions = FastifyRequest['routeOptions'];

declare module 'fastify' {
  interface FastifyRequest {
    /** `routeOptions` as first read for this request (routeOf). */
    routeOptionsRead: RouteOptions | undefined;
  }
}

/**
 * The request's route options. Fastify builds (and freezes) a new object at every read of
 * `request.routeOptions`, and every request's hooks ask for it several times (metrics, auth,
 * admission, the body hook): it is read once and kept on the request.
 */
export function routeOf(request: FastifyRequest): RouteOptions {
  let options = request.routeOptionsRead;
  if (options === undefined) {
    options = request.routeOptions;
    request.routeOptionsRead = options;
  }
  return options;
}
