import { availableParallelism } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import type { BackendContext, ModelFileLocator } from '../../core/backends/backend.ts';
import type { LlamaCppSettings } from './llama-cpp-settings.ts';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import { announcerOf, type Announcer } from '../../core/backends/announcer.ts';

export interface LlamaSettings {
  readonly modelName: string;
  readonly modelPath: string;
  /** The hf:// file `modelPath` comes from, and who knows whether it is there yet. */
  readonly hubFile: { readonly uri: string; readonly files: ModelFileLocator } | undefined;
  readonly contextSize: number | undefined;
  readonly parallelSequences: number;
  readonly threads: number;
  /** 'auto': what fits on the GPU node-llama-cpp finds, the CPU without one; 0: the CPU; N: N layers, a GPU required. */
  readonly gpuLayers: number | 'auto';
  /** Says, once per load, which device runs the model. */
  readonly announce: Announcer;
}

export function readLlamaSettings({ modelName, entry, configDir, resources }: BackendContext<LlamaCppSettings>): LlamaSettings {
  if (entry.modelPath === undefined) {
    throw new EngineFailure(
      'misconfigured',
      modelName,
      `Model '${modelName}' uses backend llama-cpp but has no modelPath; add one to its config entry, for example modelPath: ./models/model.Q4_K_M.gguf.`,
    );
  }
  const hubFile = entry.modelPath.startsWith('hf://') ? hubFileOf(modelName, entry.modelPath, resources.modelFiles) : undefined;
  return {
    modelName,
    modelPath:
      hubFile !== undefined ? hubFile.files.localPath(hubFile.uri) : isAbsolute(entry.modelPath) ? entry.modelPath : resolve(configDir, entry.modelPath),
    hubFile,
    contextSize: entry.contextSize,
    parallelSequences: entry.parallelSequences ?? 1,
    // Decoding is memory-bound: half the cores is llama.cpp's usual sweet spot, and on 2 cores one
    // thread is 20-40x faster than two that fight the event loop and each other.
    threads: entry.threads ?? Math.max(1, Math.floor(availableParallelism() / 2)),
    gpuLayers: entry.gpuLayers ?? 'auto',
    announce: announcerOf(resources),
  };
}

function hubFileOf(modelName: string, uri: string, files: ModelFileLocator | undefined): LlamaSettings['hubFile'] {
  if (files === undefined) {
    throw new EngineFailure('misconfigured', modelName, `Model '${modelName}' names ${uri}, which only a server with its models directory fetches.`);
  }
  return { uri, files };
}
