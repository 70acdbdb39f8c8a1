import { request } from 'undici';
import { engineUnreachable } from '../../core/chat/engine-errors.ts';
import { EngineFailure, type EngineFailureKind } from '../../core/errors/engine-failure.ts';
import { AnswerOverCapError } from '../engine-http/answer-over-cap-error.ts';
import { readCappedBody } from '../engine-http/read-capped-body.ts';
import { connectionDetail } from '../engine-http/connection-detail.ts';
import { engineErrorMessage } from '../engine-http/engine-http-error.ts';
import { answerOverCap } from '../engine-http/engine-request.ts';

export interface SearxngConnection {
  /** The public engine name, for messages. */
  readonly modelName: string;
  /** The instance's root, without a trailing slash. */
  readonly baseUrl: string;
  /** Sent as a Bearer token when set (an instance behind an authenticating proxy). */
  readonly apiKey: string | undefined;
  readonly timeoutMs: number;
  /** Cap of an answer body (a search result page is a few hundred KB at most). */
  readonly maxResponseBytes: number;
}

/**
 * GET {baseUrl}/search with the given parameters and `format=json`; returns the parsed answer.
 * No answer at all (refused, reset, timed out) is 1234; an answer that is not a JSON search result
 * is 500 with what the instance said, and 403 says how to turn the JSON format on.
 */
export async function getSearchJson(connection: SearxngConnection, parameters: URLSearchParams, signal: AbortSignal): Promise<unknown> {
  signal.throwIfAborted();
  const url = `${connection.baseUrl}/search?${parameters.toString()}`;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (connection.apiKey !== undefined) headers['authorization'] = `Bearer ${connection.apiKey}`;
  const timeout = AbortSignal.timeout(connection.timeoutMs);
  let text: string;
  let status: number;
  try {
    const response = await request(url, { method: 'GET', headers, signal: AbortSignal.any([signal, timeout]) });
    status = response.statusCode;
    text = (await readCappedBody(response.body, connection.maxResponseBytes, 'the answer body', 'maxResponseBytes')).toString('utf8');
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (error instanceof AnswerOverCapError) throw answerOverCap(connection.modelName, error);
    const detail = timeout.aborted ? `no answer within ${connection.timeoutMs} ms (timeoutMs)` : connectionDetail(error);
    throw engineUnreachable(connection.modelName, detail, timeout.aborted ? 'timeout' : 'unreachable', error);
  }
  const said = `The SearXNG instance for '${connection.modelName}' answered HTTP ${status}`;
  const fail = (kind: EngineFailureKind, message: string) => new EngineFailure(kind, connection.modelName, message, { engineStatus: status });
  // SearXNG answers 403 when its settings do not list the JSON format.
  if (status === 403) throw fail('engine-error', `${said}: it does not serve JSON. Add json to search.formats in its settings.yml.`);
  if (status === 429) throw fail('overloaded', `${said} (its rate limiter). Try again later.`);
  if (status < 200 || status > 299) throw fail('engine-error', `${said}: ${engineErrorMessage(text) || 'no message'}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new EngineFailure('bad-answer', connection.modelName, `${said} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
}
