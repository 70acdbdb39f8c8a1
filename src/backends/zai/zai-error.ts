import { ApiError } from '../../core/errors/api-error.ts';
import { errorCatalogue, type ErrorCode } from '../../core/errors/error-catalogue.ts';
import { engineHttpError } from '../openai-compatible/engine-http-error.ts';
import { asRecord, asString } from '../openai-compatible/wire-reading.ts';
import { readContentFilter } from './zai-content-filter.ts';

/** Codes about the caller's own credentials: upstream, they are about the server's apiKey instead. */
const credentialCodes: readonly string[] = ['1000', '1001', '1002', '1003', '1004'];

/**
 * The upstream platform answers errors in the platform's own shape, `{"error":{"code","message"}}`,
 * so its code and message are passed on as they are, with the `contentFilter` verdicts of a 1301. Two exceptions: an authentication code
 * concerns the server's configured apiKey, not the client's key, and a code this server does not
 * know becomes 500 with the upstream code in the message.
 */
export function zaiHttpError(model: string, status: number, bodyText: string): ApiError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    parsed = undefined;
  }
  const error = asRecord(asRecord(parsed)?.['error']);
  const rawCode = error?.['code'];
  const code = typeof rawCode === 'number' ? String(rawCode) : asString(rawCode);
  const message = asString(error?.['message']) ?? '';
  if (code === undefined) return engineHttpError(model, status, bodyText);
  if (credentialCodes.includes(code)) {
    return new ApiError('1221', `The upstream platform refused the apiKey configured for model '${model}' (code ${code}: ${message}).`);
  }
  if (isErrorCode(code)) return new ApiError(code, message === '' ? undefined : message, {}, readContentFilter(asRecord(parsed)?.['contentFilter']));
  return new ApiError('500', `The upstream platform answered code ${code} for model '${model}': ${message}`);
}

function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(errorCatalogue, code);
}
