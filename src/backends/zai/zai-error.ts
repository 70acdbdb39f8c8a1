import { EngineFailure, type EngineFailureKind } from '../../core/errors/engine-failure.ts';
import { errorCatalogue, type ErrorCode } from '../../core/errors/error-catalogue.ts';
import { engineHttpError } from '../engine-http/engine-http-error.ts';
import { asRecord, asString } from '../engine-http/wire-reading.ts';
import { readContentFilter } from './zai-content-filter.ts';

/** Codes about the caller's own credentials: upstream, they are about the server's apiKey instead. */
const credentialCodes: readonly string[] = ['1000', '1001', '1002', '1003', '1004'];

/**
 * The upstream platform answers errors in the platform's own shape, `{"error":{"code","message"}}`,
 * so its code and message are relayed as they are (the failure's `relayedCode`), with the
 * `contentFilter` verdicts of a 1301; the kind says what the HTTP status means, for routing. Two
 * exceptions: an authentication code concerns the server's configured apiKey, not the client's
 * key, and a code this server does not know is an engine error with the upstream code in the message.
 */
export function zaiHttpError(model: string, status: number, bodyText: string): EngineFailure {
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
  const details = { engineStatus: status, engineMessage: message };
  if (credentialCodes.includes(code)) {
    return new EngineFailure(
      'misconfigured',
      model,
      `The upstream platform refused the apiKey configured for model '${model}' (code ${code}: ${message}).`,
      details,
    );
  }
  if (isErrorCode(code)) {
    const contentFilter = readContentFilter(asRecord(parsed)?.['contentFilter']);
    return new EngineFailure(code === '1301' ? 'content-filtered' : kindOfStatus(status), model, message, { ...details, contentFilter, relayedCode: code });
  }
  return new EngineFailure('engine-error', model, `The upstream platform answered code ${code} for model '${model}': ${message}`, details);
}

/** What the upstream's HTTP status says happened, whatever its code (which is relayed as it is). */
function kindOfStatus(status: number): EngineFailureKind {
  if (status === 429) return 'overloaded';
  if (status === 502 || status === 503 || status === 504) return 'unavailable';
  if (status === 401 || status === 403 || status === 404) return 'misconfigured';
  if (status >= 400 && status < 500) return 'rejected-input';
  return 'engine-error';
}

function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(errorCatalogue, code);
}
