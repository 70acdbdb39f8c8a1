import type { BackendFactory } from '../../core/backends/backend.ts';
import type { OpenAiCompatibleSettings } from './openai-compatible-settings.ts';
import { ChatCompletionsEngine } from '../engine-http/chat-completions-engine.ts';
import { engineHttpError } from '../engine-http/engine-http-error.ts';
import { probeModelList } from '../engine-http/probe-engine.ts';
import { defaultEngineTimeoutMs, type EngineConnection } from '../engine-http/engine-request.ts';
import { buildOpenAiChatBody, defaultThinkingParam, type OpenAiBodyOptions } from '../engine-http/openai-chat-body.ts';
import { OpenAiCompatibleTokenizer } from './openai-compatible-tokenizer.ts';

/**
 * Any OpenAI-compatible inference server (vLLM, SGLang, llama.cpp server, Ollama, LocalAI):
 * chat over `{baseUrl}/chat/completions`, token counting over the engine's `/tokenize`.
 */
export const createOpenAiCompatibleBackend: BackendFactory<OpenAiCompatibleSettings> = ({ modelName, entry }) => {
  const baseUrl = entry.baseUrl.replace(/\/+$/, '');
  const engine: EngineConnection = {
    modelName,
    apiKey: entry.apiKey,
    timeoutMs: entry.timeoutMs ?? defaultEngineTimeoutMs,
    maxResponseBytes: entry.maxResponseBytes,
    httpError: (status, text) => engineHttpError(modelName, status, text),
  };
  const options: OpenAiBodyOptions = {
    modelName,
    upstreamModel: entry.upstreamModel ?? modelName,
    thinkingParam: entry.thinkingParam ?? defaultThinkingParam,
    vision: entry.vision === true,
  };
  return {
    chat: new ChatCompletionsEngine(
      engine,
      `${baseUrl}/chat/completions`,
      (request, stream) => buildOpenAiChatBody(request, options, stream),
      entry.syncAnswers ?? (entry.engine === 'llama.cpp' ? 'streamed' : entry.engine === undefined ? 'learn' : 'whole'),
    ),
    tokenizer: new OpenAiCompatibleTokenizer(engine, baseUrl, options, entry.engine),
    takesMedia: options.vision,
    // vLLM, SGLang, llama-server and Ollama all list what they serve at /models (llama-server answers 503 while it loads).
    probe: (signal) => probeModelList(baseUrl, entry.apiKey, signal),
  };
};
