import type { BackendFactory } from '../../core/engines/backend.ts';
import { LlamaCppChatModel } from './llama-cpp-chat-model.ts';
import { LlamaCppTokenCounter } from './llama-cpp-token-counter.ts';
import { LlamaEngine, readLlamaSettings } from './llama-engine.ts';

/**
 * A GGUF model run in this process by llama.cpp (node-llama-cpp's prebuilt binary, CPU unless
 * `gpuLayers` is set). The model loads on first use; `parallelSequences` requests decode at once
 * and later ones wait in line.
 */
export const createLlamaCppBackend: BackendFactory = (context) => {
  const engine = new LlamaEngine(readLlamaSettings(context));
  return {
    chat: new LlamaCppChatModel(engine),
    tokenizer: new LlamaCppTokenCounter(engine),
    close: () => engine.close(),
  };
};
