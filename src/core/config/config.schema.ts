import { Type, type Static } from '@sinclair/typebox';
import { backendKinds } from './backend-kinds.ts';

/** One public model name mapped onto an engine. Backend-specific options sit beside the common ones. */
export const ModelEntrySchema = Type.Object(
  {
    backend: Type.Union(backendKinds.map((kind) => Type.Literal(kind)), {
      description: 'Engine that serves the model.',
    }),
    baseUrl: Type.Optional(Type.String({ pattern: '^https?://', description: 'Engine address.' })),
    apiKey: Type.Optional(Type.String({ minLength: 1 })),
    upstreamModel: Type.Optional(Type.String({ minLength: 1, description: 'Model name the engine knows.' })),
    modelPath: Type.Optional(Type.String({ minLength: 1, description: 'Local weights file (GGUF).' })),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
    maxResponseBytes: Type.Optional(
      Type.Integer({
        minimum: 1024,
        description: 'HTTP engines: most bytes of one answer read whole, or of an error body (default 33554432, 32 MiB); more fails that call.',
      }),
    ),
    maxConcurrency: Type.Optional(Type.Integer({ minimum: 1 })),
    workflow: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'comfyui: workflow JSON file in API format with {{prompt}}, {{width}}, {{seed}}... placeholders (relative to the config file).',
      }),
    ),
    pollIntervalMs: Type.Optional(
      Type.Integer({ minimum: 10, description: 'comfyui, zai: how often a running image or video generation is asked for its result.' }),
    ),
    thinkingParam: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "openai-compatible: dotted path of the engine's thinking switch (default chat_template_kwargs.enable_thinking; 'none' sends none).",
      }),
    ),
    engine: Type.Optional(
      Type.Union([Type.Literal('llama.cpp'), Type.Literal('vllm'), Type.Literal('sglang')], {
        description:
          "openai-compatible: which server it is, for token counting (llama.cpp: /v1/chat/completions/input_tokens or /apply-template + /tokenize; vllm: chat /tokenize; sglang: tokenizerPath needed). Left out: found from the engine's first /tokenize answer.",
      }),
    ),
    vision: Type.Optional(Type.Boolean({ description: 'The engine takes image/video/file content parts.' })),
    classifyDirection: Type.Optional(
      Type.Boolean({
        description: 'paddle-ocr, glm-ocr: run PaddleOCR\'s direction classifier, so pages that lie upside down read right (default false: about 0.3 s a page).',
      }),
    ),
    contextSize: Type.Optional(Type.Integer({ minimum: 64, description: 'llama-cpp: context size in tokens.' })),
    parallelSequences: Type.Optional(Type.Integer({ minimum: 1, description: 'llama-cpp: requests decoded at once.' })),
    threads: Type.Optional(Type.Integer({ minimum: 1, description: 'llama-cpp: CPU threads.' })),
    gpuLayers: Type.Optional(Type.Integer({ minimum: 0, description: 'llama-cpp: layers offloaded to a GPU (default 0: CPU).' })),
    tokenizerPath: Type.Optional(Type.String({ minLength: 1, description: 'HF tokenizer.json for the tokenizer endpoint.' })),
    chatTemplatePath: Type.Optional(Type.String({ minLength: 1, description: 'Jinja chat template (default: tokenizer_config.json beside tokenizerPath).' })),
  },
  { additionalProperties: false },
);

/** One agent's settings: the catalog model it calls. */
const AgentEntry = (description: string) =>
  Type.Object({ model: Type.String({ minLength: 1, description }) }, { additionalProperties: false });

export const PlatformConfigSchema = Type.Object(
  {
    models: Type.Optional(Type.Record(Type.String({ minLength: 1 }), ModelEntrySchema)),
    agents: Type.Optional(
      Type.Object(
        {
          general_translation: Type.Optional(AgentEntry('Chat model of the catalog the translation pipelines call.')),
          slides_glm_agent: Type.Optional(AgentEntry('Chat model of the catalog that plans slides and posters.')),
          vidu_template_agent: Type.Optional(AgentEntry('Video model of the catalog the effect videos are generated with.')),
        },
        { additionalProperties: false, description: 'The models each agent of /v1/agents builds on.' },
      ),
    ),
    fetch: Type.Optional(
      Type.Object(
        {
          allow: Type.Optional(
            Type.Array(Type.String({ minLength: 1 }), {
              description: 'CIDRs or host names the SSRF guard lets through (intranets).',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    reader: Type.Optional(
      Type.Object(
        {
          render: Type.Optional(
            Type.Boolean({ description: 'Run the scripts of HTML pages in headless Chromium before reading them (default false).' }),
          ),
          chromiumPath: Type.Optional(Type.String({ minLength: 1, description: 'Chromium executable for rendering (default /usr/bin/chromium).' })),
          maxBytes: Type.Optional(
            Type.Integer({ minimum: 1024, description: 'Largest page or PDF the reader fetches, in bytes after decompression (default 20 MiB).' }),
          ),
          cacheTtlSeconds: Type.Optional(
            Type.Integer({ minimum: 0, description: 'How long a read page is served from the cache (default 3600; 0 turns the cache off).' }),
          ),
          userAgent: Type.Optional(Type.String({ minLength: 1, description: 'User-Agent of the reader and of its browser.' })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export type ModelEntry = Static<typeof ModelEntrySchema>;
export type PlatformConfig = Static<typeof PlatformConfigSchema>;
