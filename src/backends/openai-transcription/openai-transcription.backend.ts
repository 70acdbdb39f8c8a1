import type { BackendFactory } from '../../core/backends/backend.ts';
import type { OpenAiTranscriptionSettings } from './openai-transcription-settings.ts';
import { engineHttpError } from '../engine-http/engine-http-error.ts';
import { OpenAiTranscriber } from './openai-transcriber.ts';
import { probeModelList } from '../engine-http/probe-engine.ts';

/** 30 seconds of audio takes a CPU whisper a while; a GPU server answers in a second or two. */
const defaultTranscriptionTimeoutMs = 120_000;

/** An OpenAI-compatible transcription server: `POST {baseUrl}/audio/transcriptions`. */
export const createOpenAiTranscriptionBackend: BackendFactory<OpenAiTranscriptionSettings> = ({ modelName, entry }) => {
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
