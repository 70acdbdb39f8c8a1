import type { FormData } from 'undici';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import type { Transcriber, Transcription, TranscriptionRequest } from '../../core/media/transcriber.ts';
import { postForEvents, postJson, type EngineConnection } from '../engine-http/engine-request.ts';
import { audioForm } from '../engine-http/audio-form.ts';
import { asRecord, asString } from '../engine-http/wire-reading.ts';

/**
 * Transcription on the upstream platform's own `POST /audio/transcriptions`: the same multipart
 * fields the platform takes (prompt, hotwords), streamed as its `transcript.text.delta` frames.
 */
export class ZaiTranscriber implements Transcriber {
  readonly #engine: EngineConnection;
  readonly #url: string;
  readonly #upstreamModel: string;

  constructor(engine: EngineConnection, baseUrl: string, upstreamModel: string) {
    this.#engine = engine;
    this.#url = `${baseUrl}/audio/transcriptions`;
    this.#upstreamModel = upstreamModel;
  }

  async transcribe(request: TranscriptionRequest): Promise<Transcription> {
    const answer = asRecord(await postJson(this.#engine, { url: this.#url, body: this.#form(request, false), signal: request.signal }));
    const text = asString(answer?.['text']);
    if (text === undefined) throw this.#malformed("without a transcript (no 'text' field)");
    return { text };
  }

  async *stream(request: TranscriptionRequest): AsyncIterable<string> {
    for await (const data of postForEvents(this.#engine, { url: this.#url, body: this.#form(request, true), signal: request.signal })) {
      if (data === '[DONE]') return;
      let frame: unknown;
      try {
        frame = JSON.parse(data);
      } catch {
        throw this.#malformed('a stream frame that is not JSON');
      }
      const record = asRecord(frame);
      const error = asRecord(record?.['error']);
      if (error !== undefined) throw this.#engine.httpError(200, data);
      if (record?.['type'] === 'transcript.text.delta') {
        const delta = asString(record['delta']);
        if (delta !== undefined && delta !== '') yield delta;
      }
    }
  }

  #form(request: TranscriptionRequest, stream: boolean): FormData {
    const form = audioForm(request, this.#upstreamModel);
    if (request.prompt !== undefined) form.append('prompt', request.prompt);
    for (const word of request.hotwords) form.append('hotwords', word);
    if (stream) form.append('stream', 'true');
    return form;
  }

  #malformed(what: string): EngineFailure {
    return new EngineFailure(
      'bad-answer',
      this.#engine.modelName,
      `The upstream platform answered /audio/transcriptions for '${this.#engine.modelName}' ${what}.`,
    );
  }
}
