/**
 * Every business error code the platform can answer with, and the HTTP status and retry hint that
 * go with it (docs/wire.md §2.2). `satisfies Record<ErrorCode, …>` makes the compiler refuse a
 * code without an entry.
 */
export type ErrorCode =
  | '403'
  | '404'
  | '405'
  | '408'
  | '431'
  | '435'
  | '500'
  | '503'
  | '1000'
  | '1001'
  | '1002'
  | '1003'
  | '1004'
  | '1100'
  | '1110'
  | '1111'
  | '1112'
  | '1113'
  | '1120'
  | '1121'
  | '1200'
  | '1210'
  | '1211'
  | '1212'
  | '1213'
  | '1214'
  | '1215'
  | '1220'
  | '1221'
  | '1222'
  | '1230'
  | '1231'
  | '1234'
  | '1261'
  | '1300'
  | '1301'
  | '1302'
  | '1303'
  | '1304'
  | '1305'
  | '1308'
  | '1309';

export interface ErrorCodeEntry {
  /** HTTP status sent with the code. */
  readonly status: number;
  /** Whether sending the same request again can succeed (drives `x-should-retry`). */
  readonly retryable: boolean;
  /** Default English message, used when the thrower gives none. */
  readonly message: string;
}

export const errorCatalogue = {
  '403': { status: 403, retryable: false, message: 'This API key may not read that.' },
  '404': { status: 404, retryable: false, message: 'The requested resource does not exist.' },
  '405': { status: 405, retryable: false, message: 'The HTTP method is not allowed for this path.' },
  '408': { status: 408, retryable: true, message: 'The request was not received in time; send it again.' },
  '431': { status: 431, retryable: false, message: 'The request line and headers are too large.' },
  // The platform's HTTP status for an upload over its size limit (docs/wire.md §2.2).
  '435': { status: 435, retryable: false, message: 'The file is larger than 100 MB.' },
  '500': { status: 500, retryable: true, message: 'Internal server error, please try again later.' },
  '503': { status: 503, retryable: true, message: 'This server is shutting down; send the request again.' },
  '1000': { status: 401, retryable: false, message: 'Authentication failed.' },
  '1001': { status: 401, retryable: false, message: 'The Authorization header is missing.' },
  '1002': { status: 401, retryable: false, message: 'The Authorization token is invalid.' },
  '1003': { status: 401, retryable: false, message: 'The Authorization token has expired.' },
  '1004': { status: 401, retryable: false, message: 'The Authorization token could not be verified.' },
  '1100': { status: 429, retryable: true, message: 'Account read/write error, please try again later.' },
  '1110': { status: 429, retryable: false, message: 'The account is inactive.' },
  '1111': { status: 429, retryable: false, message: 'The account does not exist.' },
  '1112': { status: 429, retryable: false, message: 'The account is locked.' },
  '1113': { status: 429, retryable: false, message: 'The account is in arrears, please recharge.' },
  '1120': { status: 429, retryable: false, message: 'The account cannot be accessed.' },
  '1121': { status: 429, retryable: false, message: 'The account is locked for violations.' },
  '1200': { status: 400, retryable: false, message: 'API call error.' },
  '1210': { status: 400, retryable: false, message: 'Invalid API call parameters.' },
  '1211': { status: 400, retryable: false, message: 'Unknown Model, please check the model code.' },
  '1212': { status: 400, retryable: false, message: 'The model does not support this method.' },
  '1213': { status: 400, retryable: false, message: 'A required parameter is missing.' },
  '1214': { status: 400, retryable: false, message: 'A parameter is invalid.' },
  '1215': { status: 400, retryable: false, message: 'Two parameters that exclude each other were both set.' },
  '1220': { status: 434, retryable: false, message: 'You do not have permission to access this API.' },
  // A request error, not a server one: the Python SDKs report 503 as "server flow exceeded" (docs/wire.md §2.3).
  '1221': { status: 400, retryable: false, message: 'The model is offline.' },
  '1222': { status: 404, retryable: false, message: 'The API does not exist.' },
  '1230': { status: 500, retryable: true, message: 'The call process failed.' },
  '1231': { status: 400, retryable: false, message: 'Duplicate request_id.' },
  '1234': { status: 500, retryable: true, message: 'Network error, please try again later.' },
  '1261': { status: 400, retryable: false, message: 'Prompt exceeds max length.' },
  '1300': { status: 400, retryable: false, message: 'The call was blocked by policy.' },
  '1301': { status: 400, retryable: false, message: 'The content may contain unsafe or sensitive material.' },
  '1302': { status: 429, retryable: true, message: 'Too many concurrent requests for this key.' },
  '1303': { status: 429, retryable: true, message: 'Request rate limit reached for this key.' },
  '1304': { status: 429, retryable: false, message: 'The daily call quota for this key is used up.' },
  '1305': { status: 429, retryable: true, message: 'Traffic limit reached, please try again later.' },
  '1308': { status: 429, retryable: false, message: 'The usage cap for this key has been reached.' },
  '1309': { status: 429, retryable: false, message: 'The subscription plan has expired.' },
} as const satisfies Record<ErrorCode, ErrorCodeEntry>;
