import { ApiError } from '../errors/api-error.ts';

/** The connection to an engine broke or could not be made; mid-stream it ends the answer with `network_error`. */
export class EngineConnectionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EngineConnectionError';
  }
}

/** How an engine connection failure reads to a client before the first byte of the answer. */
export function engineUnreachable(model: string, detail: string): ApiError {
  return new ApiError('1234', `The engine for model '${model}' could not be reached: ${detail}.`);
}
