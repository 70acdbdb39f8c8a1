/** A refusal from the platform, with its own error code and message (`{"error":{"code","message"}}`). */
export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiCallError';
  }
}

export interface CallOptions {
  readonly method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Sent as JSON, or as is when FormData. */
  readonly body?: unknown;
  readonly signal?: AbortSignal;
}

/** One ordinary API call with the signed-in key; resolves to the response once its status is a success. */
export async function callRaw(key: string, path: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  let body: BodyInit | undefined;
  if (options.body instanceof FormData) body = options.body;
  else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const init: RequestInit = { method: options.method ?? (body === undefined ? 'GET' : 'POST'), headers };
  if (body !== undefined) init.body = body;
  if (options.signal !== undefined) init.signal = options.signal;
  const response = await fetch(path, init);
  if (!response.ok) throw await toApiCallError(response);
  return response;
}

/** An API call answered with JSON. */
export async function callJson<Answer>(key: string, path: string, options: CallOptions = {}): Promise<Answer> {
  return (await (await callRaw(key, path, options)).json()) as Answer;
}

async function toApiCallError(response: Response): Promise<ApiCallError> {
  const text = await response.text();
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (typeof parsed.error?.message === 'string') {
      return new ApiCallError(response.status, String(parsed.error.code ?? response.status), parsed.error.message);
    }
  } catch {
    // Not the platform's body (a proxy's page): the status line says what happened.
  }
  return new ApiCallError(response.status, String(response.status), `HTTP ${response.status} ${response.statusText}`.trim());
}

/** A query string from the set values only. */
export function queryString(values: Readonly<Record<string, string | number | undefined>>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value !== undefined && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}
