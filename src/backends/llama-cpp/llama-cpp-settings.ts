import { Type, type Static } from '@sinclair/typebox';
import { modelSettings } from '../../core/config/config.schema.ts';

/** A model entry of `backend: llama-cpp`: a GGUF file run in this process (read into LlamaSettings). */
export const LlamaCppSettingsSchema = Type.Object(
  {
    backend: Type.Literal('llama-cpp'),
    modelPath: Type.String({ minLength: 1, description: 'Local weights file (GGUF), relative to the config file.' }),
    contextSize: Type.Optional(Type.Integer({ minimum: 64, description: "Context size in tokens (default: the model's own)." })),
    parallelSequences: Type.Optional(Type.Integer({ minimum: 1, description: 'Requests decoded at once (default 1).' })),
    threads: Type.Optional(Type.Integer({ minimum: 1, description: 'CPU threads (default half the cores).' })),
    gpuLayers: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0 }), Type.Literal('auto')], {
        description:
          "Layers offloaded to a GPU: 'auto' (default) offloads what fits when a CUDA or Vulkan GPU is found and runs on the CPU otherwise; 0 keeps the model on the CPU; a number needs a GPU.",
      }),
    ),
    maxConcurrency: Type.Optional(modelSettings.maxConcurrency),
    tokenizerPath: Type.Optional(modelSettings.tokenizerPath),
    chatTemplatePath: Type.Optional(modelSettings.chatTemplatePath),
  },
  { additionalProperties: false },
);

export type LlamaCppSettings = Static<typeof LlamaCppSettingsSchema>;
