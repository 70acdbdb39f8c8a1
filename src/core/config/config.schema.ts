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
    maxConcurrency: Type.Optional(Type.Integer({ minimum: 1 })),
    workflow: Type.Optional(Type.String({ minLength: 1, description: 'ComfyUI workflow JSON file.' })),
  },
  { additionalProperties: false },
);

export const PlatformConfigSchema = Type.Object(
  {
    models: Type.Optional(Type.Record(Type.String({ minLength: 1 }), ModelEntrySchema)),
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
  },
  { additionalProperties: false },
);

export type ModelEntry = Static<typeof ModelEntrySchema>;
export type PlatformConfig = Static<typeof PlatformConfigSchema>;
