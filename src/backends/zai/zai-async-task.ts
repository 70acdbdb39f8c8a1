import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request, type Dispatcher } from 'undici';
import { engineUnreachable } from '../../core/chat/engine-errors.ts';
import { ApiError } from '../../core/errors/api-error.ts';
import { postJson, type EngineConnection } from '../openai-compatible/engine-request.ts';
import { asRecord, asString, pathOf, type WireRecord } from '../openai-compatible/wire-reading.ts';

const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 64 });

/**
 * The upstream platform's own asynchronous tasks: a submission answers `{id, task_status}` and
 * `GET /async-result/{id}` is polled until `SUCCESS` or `FAIL`. The upstream id stays inside the
 * generation that submitted it; clients only ever see this platform's task ids.
 */
export class ZaiAsyncTask {
  readonly #engine: EngineConnection;
  readonly #baseUrl: string;
  readonly #pollIntervalMs: number;

  constructor(engine: EngineConnection, baseUrl: string, pollIntervalMs: number) {
    this.#engine = engine;
    this.#baseUrl = baseUrl;
    this.#pollIntervalMs = pollIntervalMs;
  }

  /** Submits and waits; the final answer (with `image_result` or `video_result`). */
  async run(path: string, body: unknown, signal: AbortSignal): Promise<WireRecord> {
    const submitted = asRecord(await postJson(this.#engine, { url: `${this.#baseUrl}${path}`, body, signal }));
    const id = asString(submitted?.['id']);
    if (id === undefined) throw new ApiError('500', `The upstream platform answered ${path} for model '${this.#engine.modelName}' without a task id.`);
    for (;;) {
      const answer = await this.#result(id, signal);
      const status = asString(answer['task_status']);
      if (status === 'SUCCESS') return answer;
      if (status === 'FAIL') {
        const reason = asString(pathOf(answer, 'error', 'message')) ?? asString(answer['message']) ?? 'no reason given';
        throw new ApiError('500', `The upstream platform's task for model '${this.#engine.modelName}' failed: ${reason}`);
      }
      await sleep(this.#pollIntervalMs, undefined, { signal });
    }
  }

  async #result(id: string, signal: AbortSignal): Promise<WireRecord> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.#engine.apiKey !== undefined) headers['authorization'] = `Bearer ${this.#engine.apiKey}`;
    let response: Dispatcher.ResponseData;
    try {
      response = await request(`${this.#baseUrl}/async-result/${encodeURIComponent(id)}`, { method: 'GET', headers, signal, dispatcher });
    } catch (error) {
      if (signal.aborted) throw error;
      throw engineUnreachable(this.#engine.modelName, (error as Error).message || String(error));
    }
    const text = await response.body.text();
    if (response.statusCode < 200 || response.statusCode > 299) throw this.#engine.httpError(response.statusCode, text);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const record = asRecord(parsed);
    if (record === undefined) throw new ApiError('500', `The upstream platform answered GET /async-result for model '${this.#engine.modelName}' with something that is not a JSON object.`);
    return record;
  }
}
