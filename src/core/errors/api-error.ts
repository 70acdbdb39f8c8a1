import { flaggedWithoutLevel, type ContentFilterVerdict } from './content-filter.ts';
import { errorCatalogue, type ErrorCode } from './error-catalogue.ts';
import { capErrorMessage, quoteClientValue } from './quote-client-value.ts';

/** The one error type the HTTP layer turns into `{"error":{"code","message"}}`. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  /** Extra response headers (for example `Retry-After`). */
  readonly headers: Readonly<Record<string, string>>;
  /** 1301 only: what was flagged, sent as the top-level `contentFilter` beside `error` (docs/wire.md §2.1). */
  readonly contentFilter: readonly ContentFilterVerdict[] | undefined;

  /** `contentFilter` is for 1301; without it, a 1301 says the caller's input was flagged. */
  constructor(code: ErrorCode, message?: string, headers: Record<string, string> = {}, contentFilter?: readonly ContentFilterVerdict[]) {
    const entry = errorCatalogue[code];
    // Capped: a message that quotes a caller's value whole must not echo megabytes back.
    super(capErrorMessage(message ?? entry.message));
    this.name = 'ApiError';
    this.code = code;
    this.status = entry.status;
    this.retryable = entry.retryable;
    this.headers = headers;
    this.contentFilter = code === '1301' ? (contentFilter ?? flaggedWithoutLevel('user')) : undefined;
  }

  toBody(): { contentFilter?: ContentFilterVerdict[]; error: { code: string; message: string } } {
    const error = { code: this.code, message: this.message };
    return this.contentFilter === undefined ? { error } : { contentFilter: [...this.contentFilter], error };
  }
}

/** 1213: a required field is absent. `field` is the dotted path of the field. */
export function missingField(field: string): ApiError {
  return new ApiError('1213', `Missing required parameter: '${field}'.`);
}

/** 1214: a field is present but breaks a rule; `rule` says which, in words. */
export function invalidField(field: string, rule: string): ApiError {
  return new ApiError('1214', `Invalid parameter '${field}': ${rule}.`);
}

/** 404 for a resource (task, file, conversation) this key cannot see. */
export function notFound(kind: string, id: string): ApiError {
  return new ApiError('404', `${kind} '${quoteClientValue(id)}' does not exist.`);
}
