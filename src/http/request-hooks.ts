import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator } from '../core/auth/authenticator.ts';
import { dropNullOptionals } from './drop-null-optionals.ts';

/**
 * onRequest: the generated request id, then authentication: every route but the public ones
 * needs a valid key (platform-facts §5).
 */
export function identifyAndAuthenticate(authenticator: Authenticator) {
  return async (request: FastifyRequest): Promise<void> => {
    request.requestId = request.id;
    if (request.is404 || request.routeOptions.config.public === true) return;
    request.apiKey = await authenticator.authenticate(request.headers.authorization);
  };
}

/**
 * preValidation: JSON `null` in a declared field means "absent" (platform-facts §8), and a
 * well-formed client request_id wins over the generated one, in logs and responses, including
 * the error response when the body is then refused.
 */
export async function prepareBody(request: FastifyRequest): Promise<void> {
  const body = request.body;
  if (body === null || typeof body !== 'object') return;
  const bodySchema = request.routeOptions.schema?.body;
  if (bodySchema !== undefined) dropNullOptionals(bodySchema as Parameters<typeof dropNullOptionals>[0], body);
  adoptRequestId(request, (body as { request_id?: unknown }).request_id);
}

/** Makes a client's request_id (6-64 characters) the request's id; otherwise keeps the generated one. */
export function adoptRequestId(request: FastifyRequest, clientId: unknown): void {
  if (typeof clientId !== 'string' || clientId.length < 6 || clientId.length > 64) return;
  request.requestId = clientId;
  // The generated id is the log's request_id already; a client's id replaces it in a child logger.
  request.log = request.log.child({ request_id: clientId });
}

/** onSend: every response says which request it answers. */
export async function echoRequestId(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header('x-request-id', request.requestId);
}
