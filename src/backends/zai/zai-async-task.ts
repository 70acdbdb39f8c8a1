import { setTimeout as sleep } from 'node:timers/promises';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import { getJson, postJson, type EngineConnection } from '../engine-http/engine-request.ts';
import { asRecord, asString, pathOf, type WireRecord } from '../engine-http/wire-reading.ts';

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
    if (id === undefined)
      throw new EngineFailure(
        'bad-answer',
        this.#engine.modelName,
        `The upstream platform answered ${path} for model '${this.#engine.modelName}' without a task id.`,
      );
    for (;;) {
      const answer = await this.#result(id, signal);
      const status = asString(answer['task_status']);
      if (status === 'SUCCESS') return answer;
      if (status === 'FAIL') {
        const reason = asString(pathOf(answer, 'error', 'message')) ?? asString(answer['message']) ?? 'no reason given';
        throw new EngineFailure('engine-error', this.#engine.modelName, `The upstream platform's task for model '${this.#engine.modelName}' failed: ${reason}`);
      }
      await sleep(this.#pollIntervalMs, undefined, { signal });
    }
  }

  /** One poll, through the engine client: its caps (maxResponseBytes), timeout and error mapping. */
  async #result(id: string, signal: AbortSignal): Promise<WireRecord> {
    const record = asRecord(await getJson(this.#engine, { url: `${this.#baseUrl}/async-result/${encodeURIComponent(id)}`, signal }));
    if (record === undefined)
      throw new EngineFailure(
        'bad-answer',
        this.#engine.modelName,
        `The upstream platform answered GET /async-result for model '${this.#engine.modelName}' with something that is not a JSON object.`,
      );
    return record;
  }
}
