import type { BackendFactory } from '../../core/backends/backend.ts';
import type { OpenAiTranscriptionSettings } from './openai-transcription-settings.ts';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import { engineHttpError } from '../openai-compatible/engine-http-error.ts';
import { OpenAiTranscriber } from './openai-transcriber.ts';
import { probeModelList } from '../engine-http/probe-engine.ts';

/** 30 seconds of audio takes a CPU whisper a while; a GPU server answers in a second or two. */
const defaultTranscriptionTimeoutMs = 120_000;

/** An OpenAI-compatible transcription server: `POST {baseUrl}/audio/transcriptions`. */
export const createOpenAiTranscriptionBackend: BackendFactory<OpenAiTranscriptionSettings> = ({ modelName, entry }) => {
  if (entry.baseUrl === undefined) {
    throw new EngineFailure(
      'misconfigured',
      modelName,
      `Model '${modelName}' uses backend openai-transcription but has no baseUrl; add one to its config entry, for example baseUrl: http://gpu-host:8000/v1.`,
    );
  }
  const baseUrl = entry.baseUrl.replace(/\/+$/, '');
  const engine = {
    modelName,
    apiKey: entry.apiKey,
    timeoutMs: entry.timeoutMs ?? defaultTranscriptionTimeoutMs,
    maxResponseBytes: entry.maxResponseBytes,
    httpError: (status: number, text: string) => engineHttpError(modelName, status, text),
  };
  return {
    transcribe: new OpenAiTranscriber(engine, baseUrl, entry.upstreamModel ?? modelName),
    // Whisper servers (faster-whisper-server, vLLM) list their models; some minimal ones have no /models.
    probe: (signal) => probeModelList(baseUrl, entry.apiKey, signal, true),
  };
};
