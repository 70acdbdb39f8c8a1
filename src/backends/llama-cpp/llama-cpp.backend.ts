import type { Backend, BackendFactory } from '../../core/backends/backend.ts';
import type { LlamaCppSettings } from './llama-cpp-settings.ts';
import { readLlamaSettings, type LlamaSettings } from './llama-settings.ts';
import { probeFiles } from '../engine-http/probe-files.ts';
import { ProbeFailedError } from '../engine-http/probe-engine.ts';

type LoadedBackend = Required<Pick<Backend, 'chat' | 'tokenizer' | 'close'>>;

/**
 * A GGUF model run in this process by llama.cpp (node-llama-cpp's prebuilt binaries: on a CUDA or
 * Vulkan GPU when one is found, unless `gpuLayers: 0`; on the CPU otherwise). The model loads on first use; `parallelSequences` requests decode at once
 * and later ones wait in line. The settings are checked at startup; node-llama-cpp itself (~7 MB of
 * heap, ~0.5 s) is imported with the first call, so processes that never run it do not carry it.
 */
export const createLlamaCppBackend: BackendFactory<LlamaCppSettings> = (context) => {
  const settings = readLlamaSettings(context);
  let loading: Promise<LoadedBackend> | undefined;
  let loadState: 'loading' | 'loaded' | { readonly failed: unknown } = 'loading';
  const loaded = () =>
    (loading ??= loadBackend(settings).then(
      (backend) => {
        loadState = 'loaded';
        return backend;
      },
      (error: unknown) => {
        loadState = { failed: error };
        throw error;
      },
    ));
  return {
    chat: {
      generate: async (request) => (await loaded()).chat.generate(request),
      async *stream(request) {
        yield* (await loaded()).chat.stream(request);
      },
    },
    tokenizer: { countPromptTokens: async (request) => (await loaded()).tokenizer.countPromptTokens(request) },
    takesMedia: false,
    // Loaded weights answer; a load that failed stays failed (each call would fail the same way); before the first call, the file must be readable.
    probe: async (signal) => {
      if (loading === undefined) return probeFiles([settings.modelPath], signal, 'loads on first use');
      if (typeof loadState === 'object') {
        const { failed } = loadState;
        throw new ProbeFailedError(`the model did not load: ${failed instanceof Error ? failed.message : String(failed)}`);
      }
      return { detail: loadState };
    },
    close: async () => {
      if (loading !== undefined) await (await loading).close();
    },
  };
};

async function loadBackend(settings: LlamaSettings): Promise<LoadedBackend> {
  const [{ LlamaEngine }, { LlamaCppChatModel }, { LlamaCppTokenCounter }] = await Promise.all([
    import('./llama-engine.ts'),
    import('./llama-cpp-chat-model.ts'),
    import('./llama-cpp-token-counter.ts'),
  ]);
  const engine = new LlamaEngine(settings);
  return { chat: new LlamaCppChatModel(engine), tokenizer: new LlamaCppTokenCounter(engine), close: () => engine.close() };
}
