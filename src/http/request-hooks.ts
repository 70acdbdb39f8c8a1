import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator } from '../core/auth/authenticator.ts';
import { dropNullOptionals } from './drop-null-optionals.ts';
import { rebind } from './request-logger.ts';
import { routeOf } from './route-of.ts';
import { shuttingDown, type Shutdown } from './shutdown.ts';

/**
 * onRequest: the generated request id, then authentication: every route but the public ones
 * needs a valid key (platform-facts §5). While the server shuts down, a request that still
 * arrives (on a kept-alive or pipelined connection) is refused with 503 in the platform's body.
 */
export function identifyAndAuthenticate(authenticator: Authenticator, shutdown: Shutdown) {
  // A callback hook: a key seen moments ago is known without a promise (this runs on every request).
  return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void => {
    identify(request, reply, request.id);
    if (shutdown.closing) {
      done(shuttingDown());
      return;
    }
    if (request.is404 || routeOf(request).config.public === true) {
      done();
      return;
    }
    const header = request.headers.authorization;
    const known = authenticator.authenticateFromCache(header);
    if (known !== undefined) {
      request.apiKey = known;
      done();
      return;
    }
    authenticator.authenticate(header).then(
      (key) => {
        request.apiKey = key;
        done();
      },
      (error: Error) => done(error),
    );
  };
}

/**
 * preValidation: JSON `null` in a declared field means "absent" (platform-facts §8), and a
 * well-formed client request_id wins over the generated one, in logs and responses, including
 * the error response when the body is then refused.
 */
export function prepareBody(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  const body = request.body;
  if (body !== null && typeof body === 'object') {
    const bodySchema = routeOf(request).schema?.body;
    if (bodySchema !== undefined) dropNullOptionals(bodySchema as Parameters<typeof dropNullOptionals>[0], body);
    adoptRequestId(request, reply, (body as { request_id?: unknown }).request_id);
  }
  done();
}

/** Makes a client's request_id (6-64 characters) the request's id; otherwise keeps the generated one. */
export function adoptRequestId(request: FastifyRequest, reply: FastifyReply, clientId: unknown): void {
  if (typeof clientId !== 'string' || clientId.length < 6 || clientId.length > 64) return;
  identify(request, reply, clientId);
  // The generated id is the log's request_id already; a client's id takes its place.
  request.log = rebind(request.log, { request_id: clientId });
}

/** Every response says which request it answers: the header is set before anything can answer. */
export function identify(request: FastifyRequest, reply: FastifyReply, id: string): void {
  request.requestId = id;
  reply.header('x-request-id', id);
}
