import type { FormData } from 'undici';
import { audioForm } from '../engine-http/audio-form.ts';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import type { Transcriber, Transcription, TranscriptionRequest } from '../../core/media/transcriber.ts';
import { promptWithHotwords } from '../../core/media/whisper-prompt.ts';
import { postJson, type EngineConnection } from '../engine-http/engine-request.ts';
import { asRecord, asString } from '../engine-http/wire-reading.ts';

/**
 * An OpenAI-compatible transcription server (`POST {baseUrl}/audio/transcriptions`: OpenAI,
 * vLLM, faster-whisper-server / speaches, whisper.cpp server, LocalAI). It answers the whole
 * text at once; the platform streams it as one delta.
 *
 * Hotwords: OpenAI-style servers have no such field and ignore unknown ones, so the words are
 * both sent as repeated `hotwords` fields (for servers that read them) and appended to the
 * prompt, which is how Whisper models are steered toward a vocabulary.
 */
export class OpenAiTranscriber implements Transcriber {
  readonly #engine: EngineConnection;
  readonly #url: string;
  readonly #upstreamModel: string;

  constructor(engine: EngineConnection, baseUrl: string, upstreamModel: string) {
    this.#engine = engine;
    this.#url = `${baseUrl}/audio/transcriptions`;
    this.#upstreamModel = upstreamModel;
  }

  async transcribe(request: TranscriptionRequest): Promise<Transcription> {
    const answer = await postJson(this.#engine, { url: this.#url, body: this.#form(request), signal: request.signal });
    const text = asString(asRecord(answer)?.['text']);
    if (text === undefined) {
      throw new EngineFailure(
        'bad-answer',
        this.#engine.modelName,
        `The engine for model '${this.#engine.modelName}' answered without a transcript (no 'text' field).`,
      );
    }
    return { text };
  }

  #form(request: TranscriptionRequest): FormData {
    const form = audioForm(request, this.#upstreamModel);
    form.append('response_format', 'json');
    const prompt = promptWithHotwords(request.prompt, request.hotwords);
    if (prompt !== undefined) form.append('prompt', prompt);
    for (const word of request.hotwords) form.append('hotwords', word);
    return form;
  }
}
