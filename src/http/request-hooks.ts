import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator } from '../core/auth/authenticator.ts';
import { dropNullOptionals } from './drop-null-optionals.ts';

/** onRequest: every route but the public ones needs a valid key (platform-facts §5). */
export function authenticate(authenticator: Authenticator) {
  return async (request: FastifyRequest): Promise<void> => {
    if (request.is404 || request.routeOptions.config.public === true) return;
    request.apiKey = await authenticator.authenticate(request.headers.authorization);
  };
}

/** preValidation: JSON `null` in a declared field means "absent" (platform-facts §8). */
export async function normaliseNulls(request: FastifyRequest): Promise<void> {
  const bodySchema = request.routeOptions.schema?.body;
  if (bodySchema !== undefined && request.body !== null && typeof request.body === 'object') {
    dropNullOptionals(bodySchema as Parameters<typeof dropNullOptionals>[0], request.body);
  }
}

/**
 * preValidation: a well-formed client request_id wins over the generated one, in logs and
 * responses, including the error response when the body is then refused.
 */
export async function adoptClientRequestId(request: FastifyRequest): Promise<void> {
  const body = request.body as { request_id?: unknown } | undefined;
  adoptRequestId(request, body !== null && typeof body === 'object' ? body.request_id : undefined);
}

/** Makes a client's request_id (6-64 characters) the request's id; otherwise keeps the generated one. */
export function adoptRequestId(request: FastifyRequest, clientId: unknown): void {
  if (typeof clientId === 'string' && clientId.length >= 6 && clientId.length <= 64) {
    request.requestId = clientId;
  }
  request.log = request.log.child({ request_id: request.requestId });
}

/** onSend: every response says which request it answers. */
export async function echoRequestId(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header('x-request-id', request.requestId);
}
