import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Agent } from '../agents/agent.ts';
import type { AgentId } from '../agents/index.ts';
import type { KeyAdmin } from '../platform/key-admin.ts';
import type { ModelFileStatus } from '../platform/model-files/model-files.ts';
import type { Authenticator, AuthenticatedKey } from '../core/auth/authenticator.ts';
import type { Admission } from '../core/limits/admission.ts';
import type { BlobStore } from '../core/blobs/blob-store.ts';
import type { PlatformConfig } from '../core/config/config.schema.ts';
import type { ModelBackends } from '../core/backends/model-backends.ts';
import type { FileStore } from '../core/files/file-store.ts';
import type { MediaFetcher } from '../core/chat/inline-remote-media.ts';
import type { VisualMediaReader } from '../core/media/visual-media-reader.ts';
import type { KnowledgeIndex } from '../core/knowledge/knowledge-index.ts';
import type { Readiness } from '../core/health/readiness.ts';
import type { PlatformMetrics } from '../core/metrics/platform-metrics.ts';
import type { RequestCountRecorder } from '../core/metrics/request-counts.ts';
import type { ModelResolver } from '../core/models/model-resolver.ts';
import type { TaskService } from '../core/tasks/task.ts';
import type { TaskListing } from '../core/tasks/task-listing.ts';
import type { UsageRecorder } from '../core/usage/usage-recorder.ts';
import type { WebReader } from '../core/web/web-reader.ts';
import type { BlobUrlSigner } from '../blobs/blob-url-signer.ts';
import type { Database } from '../store/database.ts';
import type { ResponseMismatchReporter } from './response-validation.ts';

/** The Fastify instance every route module receives, typed by TypeBox. */
export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

/** Everything the HTTP layer needs, passed in explicitly (docs/architecture.md, "Composition"). */
export interface AppDependencies {
  readonly config: PlatformConfig;
  readonly database: Database;
  readonly authenticator: Authenticator;
  readonly models: ModelResolver;
  readonly backends: ModelBackends;
  readonly reader: WebReader;
  readonly usage: UsageRecorder;
  /** Async image and video tasks: submit, and read by the owning key. */
  readonly tasks: TaskService;
  /** Generated media; `downloadUrl` gives the absolute URLs clients fetch. */
  readonly blobs: BlobStore;
  /** Checks the signed download URLs served at GET /blobs/<key>. */
  readonly blobUrls: BlobUrlSigner;
  /** Uploaded files (POST /files), each key seeing only its own. */
  readonly files: FileStore;
  /** The knowledge bases of the retrieval tool (files uploaded with purpose=retrieval). */
  readonly knowledge: KnowledgeIndex;
  /** Async tasks listed newest first, for GET /admin/tasks. */
  readonly taskListing: TaskListing;
  /** Media given by URL in chat and tokenizer messages, fetched through the SSRF guard. */
  readonly mediaFetcher: MediaFetcher;
  /** Reads the size and length of pictures and videos whose tokens the engine does not count (tokenizer). */
  readonly mediaReader: VisualMediaReader;
  /** The agents of /v1/agents, by agent_id. */
  readonly agents: Readonly<Record<AgentId, Agent>>;
  /** Key limits (rate, models, quotas, concurrency, credit): one path for every route (http/admission-hooks.ts). */
  readonly admission: Admission;
  /** Keys and policies for the admin API (the CLI uses the same). */
  readonly keyAdmin: KeyAdmin;
  /** This process's Prometheus metrics: request counts and times, streams; served at GET /metrics. */
  readonly metrics: PlatformMetrics;
  /** Every node's model calls by hour, from the database (GET /admin/requests' month). */
  readonly requestCounts: Pick<RequestCountRecorder, 'lastDays'>;
  /** The hf:// model files of the catalog and their downloads (GET /admin/model-files); none in tests without them. */
  readonly modelFiles?: { statuses(): ModelFileStatus[] };
  /** The dependency checks of GET /readyz. */
  readonly readiness: Readiness;
  /** The process's logger (the platform's), pino options, or false to log nothing (tests). */
  readonly logger: FastifyBaseLogger | boolean | Record<string, unknown>;
  /**
   * Tests only: every answer is checked against its route's response schema and each mismatch is
   * reported here (http/response-validation.ts). Absent in production, where nothing is checked.
   */
  readonly onResponseMismatch?: ResponseMismatchReporter;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The platform request_id: the client's, else generated. */
    requestId: string;
    /** The key that authenticated this request (unset on public routes). */
    apiKey: AuthenticatedKey | undefined;
  }
  interface FastifyContextConfig {
    /** Served without authentication (health, docs, OpenAPI). */
    public?: boolean;
    /** The schema of each `data:` event of the route's text/event-stream answer. */
    streamEvent?: object;
  }
}
