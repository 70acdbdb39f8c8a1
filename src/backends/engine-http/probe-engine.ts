import { request } from 'undici';
import type { ProbeResult } from '../../core/backends/backend.ts';
import { abortReason } from '../../core/errors/abort-reason.ts';
import { engineDispatcher } from './engine-dispatcher.ts';
import { readCappedBody } from './read-capped-body.ts';
import { connectionDetail } from './connection-detail.ts';

/** A probe answers in this long or counts as failed: it runs beside live traffic and must not queue behind it. */
const probeTimeoutMs = 5_000;

/** Most bytes of a probe's answer: a model list or a status page is a few KB; more is not a health answer. */
export const maxProbeAnswerBytes = 1024 * 1024;

/** Most model names kept from one answer, and most characters of each: the list is shown, not searched. */
const maxReportedModels = 100;
const maxModelNameLength = 200;

/** A probe that found the engine unreachable or unhealthy; its message names the request, never a credential. */
export class ProbeFailedError extends Error {
  /** The HTTP status the engine answered, when it answered. */
  readonly status: number | undefined;

  constructor(message: string, status?: number, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ProbeFailedError';
    this.status = status;
  }
}

export interface ProbeRequest {
  /** The full address to GET. */
  readonly url: string;
  /** Shown in messages instead of the address (`GET /models`). */
  readonly label: string;
  /** Sent as `Authorization: Bearer` when set; never part of a message. */
  readonly apiKey?: string | undefined;
  readonly signal: AbortSignal;
  /** Statuses other than 2xx that still mean the engine answered and is up (a cloud API without the path). */
  readonly alsoHealthy?: readonly number[];
}

/** What a probe's GET received: the status and the answer parsed as JSON (undefined when it is not JSON). */
export interface ProbeAnswer {
  readonly status: number;
  readonly json: unknown;
}

/**
 * One GET through the engines' undici Agent, bounded by `probeTimeoutMs` and `maxProbeAnswerBytes`:
 * a refused connection, a timeout, an oversized answer or a status outside 2xx (and `alsoHealthy`)
 * is a ProbeFailedError. The caller's abort is rethrown as its reason.
 */
export async function probeGet(probe: ProbeRequest): Promise<ProbeAnswer> {
  probe.signal.throwIfAborted();
  const timeout = AbortSignal.timeout(probeTimeoutMs);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (probe.apiKey !== undefined) headers['authorization'] = `Bearer ${probe.apiKey}`;
  let status: number;
  let text: string;
  try {
    const response = await request(probe.url, { method: 'GET', headers, signal: AbortSignal.any([probe.signal, timeout]), dispatcher: engineDispatcher });
    status = response.statusCode;
    text = (await readCappedBody(response.body, maxProbeAnswerBytes, 'the probe answer')).toString('utf8');
  } catch (error) {
    if (probe.signal.aborted) throw abortReason(probe.signal);
    const detail = timeout.aborted ? `no answer within ${probeTimeoutMs} ms` : connectionDetail(error);
    throw new ProbeFailedError(`${probe.label}: ${redact(detail, probe.apiKey)}`, undefined, { cause: error });
  }
  if ((status < 200 || status > 299) && probe.alsoHealthy?.includes(status) !== true) {
    throw new ProbeFailedError(`${probe.label} answered HTTP ${status}${statusHint(status)}`, status);
  }
  return { status, json: parseJson(text) };
}

/**
 * Probes an OpenAI-style API by `GET {baseUrl}/models` and reports the model ids it lists. A 404
 * fails (a baseUrl without its `/v1`) unless `modelListOptional`: an API that may not have the
 * path (a cloud platform) is up when it answers at all.
 */
export async function probeModelList(baseUrl: string, apiKey: string | undefined, signal: AbortSignal, modelListOptional = false): Promise<ProbeResult> {
  const answer = await probeGet({ url: `${baseUrl}/models`, label: 'GET /models', apiKey, signal, alsoHealthy: modelListOptional ? [404] : [] });
  if (answer.status === 404) return { detail: 'answers (no model list)' };
  const models = reportedModelNames(answer.json);
  if (models === undefined) throw new ProbeFailedError('GET /models answered without a model list', answer.status);
  return { models };
}

/**
 * The model names of a model list: OpenAI's `data[].id`, and the `models[].name`/`model` that
 * llama-server and Ollama add; undefined when the answer has neither list.
 */
function reportedModelNames(json: unknown): string[] | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const { data, models } = json as { data?: unknown; models?: unknown };
  if (!Array.isArray(data) && !Array.isArray(models)) return undefined;
  const names = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === 'string' && value !== '' && names.size < maxReportedModels) names.add(value.slice(0, maxModelNameLength));
  };
  for (const item of Array.isArray(data) ? data : []) add((item as { id?: unknown } | null)?.id);
  for (const item of Array.isArray(models) ? models : []) {
    const named = item as { name?: unknown; model?: unknown } | null;
    add(named?.name);
    add(named?.model);
  }
  return [...names];
}

function statusHint(status: number): string {
  if (status === 401 || status === 403) return ' (check apiKey)';
  if (status === 404) return ' (check baseUrl)';
  return '';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function redact(text: string, apiKey: string | undefined): string {
  return apiKey === undefined || apiKey === '' ? text : text.split(apiKey).join('***');
}
