import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { ApiError } from '../core/errors/api-error.ts';
import { sendApiError } from './error-handler.ts';

/**
 * Knows every registered path, so that an unknown path answers 404 (1222) and a known path with
 * the wrong method answers 405 with `Allow`, both in the platform's error body.
 */
export class RouteTable {
  readonly #routes: { pattern: RegExp; method: string }[] = [];

  add(route: RouteOptions): void {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const source = route.url
      .replace(/\/+$/, '')
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    for (const method of methods) this.#routes.push({ pattern: new RegExp(`^${source}/?$`), method });
  }

  allowedMethods(path: string): string[] {
    return [...new Set(this.#routes.filter((route) => route.pattern.test(path)).map((route) => route.method))];
  }

  notFoundHandler = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = this.allowedMethods(path);
    if (allowed.length > 0) {
      return sendApiError(
        reply,
        new ApiError('405', `Method ${request.method} is not allowed for ${path}; use ${allowed.join(', ')}.`, { allow: allowed.join(', ') }),
      );
    }
    return sendApiError(reply, new ApiError('1222', `The API ${request.method} ${path} does not exist.`));
  };
}
