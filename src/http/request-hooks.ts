import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator } from '../core/auth/authenticator.ts';
import { ApiError } from '../core/errors/api-error.ts';
import { clientIdsError, requestIdRule } from './client-ids.ts';
import { dropNullOptionals } from './drop-null-optionals.ts';
import { rebind } from './request-logger.ts';
import { routeOf } from './route-of.ts';
import { shuttingDown, type Shutdown } from './shutdown.ts';

/**
 * onRequest: the generated request id, then authentication: every route but the public ones
 * needs a valid key (docs/wire.md §5). While the server shuts down, a request that still
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
    // HTTP/1.1 requires Host; Node's own refusal (requireHostHeader) would answer 400 with no body at all.
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      done(new ApiError('1210', 'The request is not valid HTTP/1.1: it has no Host header.'));
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
 * preValidation: JSON `null` in a declared field means "absent" (docs/wire.md §8), and a
 * well-formed client request_id wins over the generated one, in logs and responses, including
 * the error response when the body is then refused. A request_id or user_id that breaks its rule
 * (client-ids.ts) is refused with 1214 here, before the body's other checks and any engine call,
 * on the routes whose body declares it (elsewhere it is an unknown field, ignored).
 */
export function prepareBody(request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
  const body = request.body;
  if (body !== null && typeof body === 'object') {
    const bodySchema = routeOf(request).schema?.body as BodySchema | undefined;
    if (bodySchema !== undefined) dropNullOptionals(bodySchema as Parameters<typeof dropNullOptionals>[0], body);
    const error = clientIdsError(body, declaredClientIds(bodySchema));
    if (error !== undefined) {
      done(error);
      return;
    }
    adoptRequestId(request, reply, (body as { request_id?: unknown }).request_id);
  }
  done();
}

/**
 * The multipart counterpart of prepareBody, for a form already read and validated against
 * `schema`: 1214 for a request_id or user_id (where the form declares it) that breaks its rule,
 * else the client's request_id is adopted.
 */
export function adoptClientIds(request: FastifyRequest, reply: FastifyReply, fields: unknown, schema: BodySchema): void {
  const error = clientIdsError(fields, declaredClientIds(schema));
  if (error !== undefined) throw error;
  adoptRequestId(request, reply, (fields as { request_id?: unknown } | null)?.request_id);
}

/**
 * Makes a client's request_id the request's id when it keeps the rule (6-64 characters, a safe
 * set: it becomes a response header); otherwise keeps the generated one.
 */
function adoptRequestId(request: FastifyRequest, reply: FastifyReply, clientId: unknown): void {
  if (typeof clientId !== 'string' || !requestIdRule.test(clientId)) return;
  identify(request, reply, clientId);
  // The generated id is the log's request_id already; a client's id takes its place.
  request.log = rebind(request.log, { request_id: clientId });
}

interface BodySchema {
  readonly properties?: Readonly<Record<string, unknown>>;
}

type ClientIdName = 'request_id' | 'user_id';

/** Each body schema's declared client ids, found once per route rather than per request. */
const declaredBySchema = new WeakMap<BodySchema, readonly ClientIdName[]>();
const noSchemaDeclares: readonly ClientIdName[] = [];

function declaredClientIds(schema: BodySchema | undefined): readonly ClientIdName[] {
  if (schema === undefined) return noSchemaDeclares;
  let names = declaredBySchema.get(schema);
  if (names === undefined) {
    names = (['request_id', 'user_id'] as const).filter((name) => schema.properties?.[name] !== undefined);
    declaredBySchema.set(schema, names);
  }
  return names;
}

/** Every response says which request it answers: the header is set before anything can answer. */
export function identify(request: FastifyRequest, reply: FastifyReply, id: string): void {
  request.requestId = id;
  reply.header('x-request-id', id);
}
