import { Agent, FormData, request, type Dispatcher } from 'undici';
import { engineUnreachable } from '../../core/chat/engine-errors.ts';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import { AnswerOverCapError } from '../engine-http/answer-over-cap-error.ts';
import { readCappedBody } from '../engine-http/read-capped-body.ts';
import { maxEngineVideoBytes } from '../../tools/media/engine-media-download.ts';
import { engineErrorMessage } from '../engine-http/engine-http-error.ts';
import { answerOverCap, defaultMaxResponseBytes } from '../engine-http/engine-request.ts';
import { asRecord, asString } from '../engine-http/wire-reading.ts';
import { describeNodeErrors } from './comfyui-history.ts';

/** One output file of a finished prompt, as history lists it and /view serves it. */
export interface ComfyFile {
  readonly filename: string;
  readonly subfolder: string;
  readonly type: string;
}

const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 64 });

/** Longest a cancellation may take: it runs after the caller gave up and must not hold anything. */
const cancelTimeoutMs = 5_000;

/**
 * ComfyUI's HTTP API: POST /prompt queues a workflow, GET /history/{id} tells when it is done,
 * GET /view serves an output file, POST /upload/image stores an input image, and POST /queue +
 * /interrupt cancel. Every failure is an EngineFailure that names the model and the call.
 */
export class ComfyUiClient {
  readonly #baseUrl: string;
  readonly #modelName: string;
  readonly #apiKey: string | undefined;
  /** Cap of a JSON answer or error body; output files (/view) may be as large as a video. */
  readonly #maxResponseBytes: number;

  constructor(baseUrl: string, modelName: string, apiKey: string | undefined, maxResponseBytes: number = defaultMaxResponseBytes) {
    this.#baseUrl = baseUrl;
    this.#modelName = modelName;
    this.#apiKey = apiKey;
    this.#maxResponseBytes = maxResponseBytes;
  }

  /** Queues a filled workflow; its prompt_id. A workflow ComfyUI refuses is a configuration problem. */
  async queuePrompt(workflow: Record<string, unknown>, clientId: string, workflowPath: string, signal: AbortSignal): Promise<string> {
    const response = await this.#call('POST', '/prompt', { json: { prompt: workflow, client_id: clientId }, signal });
    if (response.status === 400) {
      const body = asRecord(parseJson(response.text));
      const error = asString(asRecord(body?.['error'])?.['message']) ?? engineErrorMessage(response.text);
      const nodes = describeNodeErrors(body?.['node_errors']);
      throw new EngineFailure(
        'misconfigured',
        this.#modelName,
        `ComfyUI refused the workflow of model '${this.#modelName}' (${workflowPath}): ${error}${nodes === '' ? '' : ` ${nodes}`}`,
      );
    }
    const promptId = asString(asRecord(parseJson(this.#expectOk(response, 'POST /prompt')))?.['prompt_id']);
    if (promptId === undefined)
      throw new EngineFailure('bad-answer', this.#modelName, `ComfyUI answered POST /prompt for model '${this.#modelName}' without a prompt_id.`);
    return promptId;
  }

  /** The history entry of a prompt, or undefined while it is queued or running. */
  async history(promptId: string, signal: AbortSignal): Promise<unknown> {
    const response = await this.#call('GET', `/history/${encodeURIComponent(promptId)}`, { signal });
    return asRecord(parseJson(this.#expectOk(response, 'GET /history')))?.[promptId];
  }

  async view(file: ComfyFile, signal: AbortSignal): Promise<Uint8Array> {
    const query = new URLSearchParams({ filename: file.filename, subfolder: file.subfolder, type: file.type });
    const response = await this.#call('GET', `/view?${query.toString()}`, { signal, binary: true });
    if (response.status < 200 || response.status > 299) this.#expectOk(response, `GET /view of ${file.filename}`);
    return response.bytes;
  }

  /** Stores an input image; the name a LoadImage node takes (`subfolder/name` when in a subfolder). */
  async uploadImage(bytes: Uint8Array, filename: string, contentType: string, signal: AbortSignal): Promise<string> {
    const form = new FormData();
    form.append('image', new Blob([bytes], { type: contentType }), filename);
    form.append('type', 'input');
    form.append('overwrite', 'true');
    const response = await this.#call('POST', '/upload/image', { form, signal });
    const body = asRecord(parseJson(this.#expectOk(response, 'POST /upload/image')));
    const name = asString(body?.['name']);
    if (name === undefined)
      throw new EngineFailure('bad-answer', this.#modelName, `ComfyUI answered POST /upload/image for model '${this.#modelName}' without a name.`);
    const subfolder = asString(body?.['subfolder']) ?? '';
    return subfolder === '' ? name : `${subfolder}/${name}`;
  }

  /**
   * Takes a prompt out of the queue, or stops it when it runs (ComfyUI interrupts by prompt_id
   * only the prompt named, so another client's work is left alone). Best effort: errors are ignored.
   */
  async cancel(promptId: string): Promise<void> {
    const signal = AbortSignal.timeout(cancelTimeoutMs);
    await Promise.allSettled([
      this.#call('POST', '/queue', { json: { delete: [promptId] }, signal }),
      this.#call('POST', '/interrupt', { json: { prompt_id: promptId }, signal }),
    ]);
  }

  #expectOk(response: { status: number; text: string }, call: string): string {
    if (response.status >= 200 && response.status <= 299) return response.text;
    const { status } = response;
    const engineMessage = engineErrorMessage(response.text);
    const said = `ComfyUI answered ${call} for model '${this.#modelName}' with HTTP ${status}: ${engineMessage || 'no message'}`;
    // A 404 means the address or the ComfyUI version is not what the config expects.
    throw new EngineFailure(status === 404 ? 'misconfigured' : 'engine-error', this.#modelName, said, { engineStatus: status, engineMessage });
  }

  async #call(
    method: 'GET' | 'POST',
    path: string,
    options: { json?: unknown; form?: FormData; signal: AbortSignal; binary?: boolean },
  ): Promise<{ status: number; text: string; bytes: Uint8Array }> {
    const headers: Record<string, string> = {};
    if (this.#apiKey !== undefined) headers['authorization'] = `Bearer ${this.#apiKey}`;
    let body: Dispatcher.RequestOptions['body'] = null;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form !== undefined) {
      body = options.form;
    }
    let response: Dispatcher.ResponseData;
    try {
      response = await request(`${this.#baseUrl}${path}`, { method, headers, body, signal: options.signal, dispatcher });
    } catch (error) {
      if (options.signal.aborted) throw error;
      throw engineUnreachable(this.#modelName, `ComfyUI at ${this.#baseUrl}: ${(error as Error).message || String(error)}`);
    }
    const ok = response.statusCode >= 200 && response.statusCode <= 299;
    const cap = options.binary === true && ok ? Math.max(maxEngineVideoBytes, this.#maxResponseBytes) : this.#maxResponseBytes;
    let bytes: Uint8Array;
    try {
      bytes = await readCappedBody(response.body, cap, options.binary === true && ok ? 'the output file' : 'the answer body', 'maxResponseBytes');
    } catch (error) {
      if (error instanceof AnswerOverCapError) throw answerOverCap(this.#modelName, error);
      if (options.signal.aborted) throw error;
      throw engineUnreachable(this.#modelName, `ComfyUI at ${this.#baseUrl}: ${(error as Error).message || String(error)}`);
    }
    return { status: response.statusCode, bytes, text: options.binary === true && ok ? '' : Buffer.from(bytes).toString('utf8') };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
