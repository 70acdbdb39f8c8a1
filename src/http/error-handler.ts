import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors/api-error.ts';
import { asApiError, EngineFailure } from '../core/errors/engine-failure.ts';
import { quoteClientValue } from '../core/errors/quote-client-value.ts';
import { engineFailureLogged } from '../core/logging/engine-failure-log.ts';
import { identify } from './request-hooks.ts';
import { violationToApiError } from './validation-error.ts';

/** Sends an ApiError in the platform's body, with `x-should-retry: false` when retrying cannot help. */
export function sendApiError(reply: FastifyReply, error: ApiError): FastifyReply {
  reply.request.errorCode = error.code;
  reply.code(error.status).headers(error.headers);
  if (!error.retryable) reply.header('x-should-retry', 'false');
  return reply.type('application/json; charset=utf-8').send(error.toBody());
}

/** Every failure on every route ends here and leaves in the platform's error shape. */
export function handleError(error: FastifyError | ApiError | EngineFailure | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendApiError(reply, toApiError(error, request));
}

/**
 * Fastify's own refusals before any route or hook runs (a URL that does not decode, a path
 * parameter over its length): the platform's error body and a request id, like every answer.
 */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  identify(request, reply, request.id);
  handleError(error, request, reply);
}

function toApiError(error: FastifyError | ApiError | EngineFailure | Error, request: FastifyRequest): ApiError {
  // An engine's failure becomes the platform's code here, through the one mapping.
  const platformError = asApiError(error);
  if (platformError !== undefined) return platformError;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation !== undefined) {
    return violationToApiError(fastifyError.validation);
  }
  const code = fastifyError.code ?? '';
  if (code === 'FST_ERR_BAD_URL' || code === 'FST_ERR_MAX_PARAM_LENGTH') return new ApiError('1210', `The URL is not valid: ${quoteUrlPart(error.message)}.`);
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new ApiError('1210', 'The request body is too large for this endpoint.');
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new ApiError('1210', `Unsupported Content-Type '${quoteClientValue(request.headers['content-type'] ?? '')}'.`);
  }
  if (code.startsWith('FST_ERR_CTP_') || fastifyError.statusCode === 400) {
    return new ApiError('1210', `The request body could not be parsed: ${error.message}`);
  }
  // Logged once: an engine's failure has its line already, and a call the client left is not an
  // error of the server (the request's line says the client closed the connection).
  if (!engineFailureLogged(error) && !request.responseEnd?.clientLeft) request.log.error({ err: error }, 'unhandled error');
  return new ApiError('500');
}

/** Fastify's "'<part of the URL>' is not a valid url component", with the quoted part cut short. */
function quoteUrlPart(message: string): string {
  const match = /^'([\s\S]*)' (is [^']*)$/.exec(message);
  return match === null ? quoteClientValue(message, 200) : `'${quoteClientValue(match[1])}' ${match[2] ?? ''}`;
}
