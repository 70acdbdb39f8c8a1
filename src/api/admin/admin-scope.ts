import type { FastifyRequest } from 'fastify';
import { scopeOf } from '../../core/limits/key-policy.ts';

/** Whether the request's key has the admin scope (reads open to every key answer others with their own rows). */
export function isAdminKey(request: FastifyRequest): boolean {
  return scopeOf(request.apiKey?.policy) === 'admin';
}
