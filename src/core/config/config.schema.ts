import { Type, type Static } from '@sinclair/typebox';
import { BillingConfigSchema } from '../billing/price-table.ts';

/**
 * One public model name mapped onto an engine, as the platform sees it: the engine kind in
 * `backend` and that kind's own settings, which the loader checks against the kind's schema (the
 * engine table, passed in by the composition root). The platform itself reads only the settings
 * of `modelSettings`.
 */
export interface ModelEntry {
  readonly backend: string;
  readonly maxConcurrency?: number;
  readonly timeoutMs?: number;
  readonly tokenizerPath?: string;
  readonly chatTemplatePath?: string;
  readonly [setting: string]: unknown;
}

/** How a routed model picks among its healthy deployments. */
export type RoutingStrategy = 'least-in-flight' | 'weighted' | 'priority';

/** One engine of a routed model: a full engine entry plus how the router weighs it. */
export interface DeploymentEntry extends ModelEntry {
  /** Unique within the model; default `<host>:<port>` of `baseUrl`, else `<backend>#<index>`. */
  readonly name?: string;
  readonly weight?: number;
  readonly priority?: number;
}

/** A model served by several engines (deployments), with failover among them and optionally to other models. */
export interface RoutedModelEntry {
  readonly deployments: readonly DeploymentEntry[];
  readonly routing?: RoutingStrategy;
  readonly fallbacks?: readonly string[];
  readonly maxAttempts?: number;
}

/** A `models` entry of the config file: one engine (today's form) or several deployments. */
export type CatalogEntry = ModelEntry | RoutedModelEntry;

/**
 * Settings the platform reads of any model entry, for the engine settings schemas to include where
 * they apply (one definition, one description).
 */
export const modelSettings = {
  maxConcurrency: Type.Integer({
    minimum: 1,
    description: 'Calls (chat) or tasks (images, videos, documents) of this model the platform runs at once in one process.',
  }),
  timeoutMs: Type.Integer({ minimum: 1, description: 'Longest engine call in milliseconds (each engine kind has its default).' }),
  tokenizerPath: Type.String({ minLength: 1, description: 'HF tokenizer.json for the tokenizer endpoint (relative to the config file).' }),
  chatTemplatePath: Type.String({ minLength: 1, description: 'Jinja chat template (default: tokenizer_config.json beside tokenizerPath).' }),
};

/** Any mapping: each entry (or each of its deployments) is checked against the schema of its `backend` by the loader. */
const ModelEntryShape = Type.Unsafe<CatalogEntry>(Type.Object({}));

/** The keys of a routed model entry beside its deployments (each deployment is checked against its kind's schema). */
export const RoutedModelEntrySchema = Type.Object(
  {
    deployments: Type.Array(Type.Object({}), { minItems: 1, maxItems: 64, description: 'The engines that serve this model, each a full engine entry.' }),
    routing: Type.Optional(
      Type.Union([Type.Literal('least-in-flight'), Type.Literal('weighted'), Type.Literal('priority')], {
        description: 'How a call picks among healthy deployments (default least-in-flight).',
      }),
    ),
    fallbacks: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), { maxItems: 8, description: 'Models of this file tried in order when every deployment failed.' }),
    ),
    maxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 16, description: 'Most engine calls one request makes, fallbacks included (default 3).' })),
  },
  { additionalProperties: false },
);

/** What a deployment adds to its engine entry. */
export const DeploymentExtrasSchema = Type.Object({
  name: Type.Optional(
    Type.String({ pattern: '^[A-Za-z0-9._:#@/-]{1,100}$', description: 'Unique within the model; names the deployment in headers, metrics and logs.' }),
  ),
  weight: Type.Optional(Type.Number({ minimum: 0, maximum: 1000000, description: 'Share of calls under weighted routing (default 1).' })),
  priority: Type.Optional(Type.Integer({ minimum: 0, description: 'Lower is tried first under priority routing (default 0).' })),
});

/** One agent's settings: the catalog model it calls. */
const AgentEntry = (description: string) => Type.Object({ model: Type.String({ minLength: 1, description }) }, { additionalProperties: false });

export const PlatformConfigSchema = Type.Object(
  {
    models: Type.Optional(Type.Record(Type.String({ minLength: 1 }), ModelEntryShape)),
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
    knowledge: Type.Optional(
      Type.Object(
        {
          ocrModel: Type.Optional(
            Type.String({
              minLength: 1,
              description: 'Layout-parsing model of the catalog that reads knowledge-base PDFs without a text layer (scans) by OCR (default glm-ocr).',
            }),
          ),
          readTimeoutMs: Type.Optional(
            Type.Integer({
              minimum: 1,
              description:
                "Longest reading one knowledge file's text may take: an HTML page's article or a PDF's text layer, each in a thread of its own (default 120000).",
            }),
          ),
          maxConcurrentReaders: Type.Optional(
            Type.Integer({
              minimum: 1,
              description:
                'Knowledge files (HTML, PDF) read at once by the whole server, each in a thread of its own; other uploads wait up to 30 s, then 1305 (default: the number of CPUs, 2 at least).',
            }),
          ),
        },
        { additionalProperties: false, description: 'Local knowledge bases of the chat retrieval tool.' },
      ),
    ),
    billing: Type.Optional(BillingConfigSchema),
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
          render: Type.Optional(Type.Boolean({ description: 'Run the scripts of HTML pages in headless Chromium before reading them (default false).' })),
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

export type PlatformConfig = Static<typeof PlatformConfigSchema>;
