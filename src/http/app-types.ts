import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Authenticator, AuthenticatedKey } from '../core/auth/authenticator.ts';
import type { BlobStore } from '../core/blobs/blob-store.ts';
import type { PlatformConfig } from '../core/config/config.schema.ts';
import type { EngineRegistry } from '../core/engines/engine-registry.ts';
import type { ModelResolver } from '../core/models/model-resolver.ts';
import type { TaskService } from '../core/tasks/task.ts';
import type { UsageRecorder } from '../core/usage/usage-recorder.ts';
import type { WebReader } from '../core/web/web-reader.ts';
import type { BlobUrlSigner } from '../blobs/blob-url-signer.ts';
import type { Database } from '../store/database.ts';

/** The Fastify instance every route module receives, typed by TypeBox. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** Everything the HTTP layer needs, passed in explicitly (DESIGN: `buildApp(deps)`). */
export interface AppDependencies {
  readonly config: PlatformConfig;
  readonly database: Database;
  readonly authenticator: Authenticator;
  readonly models: ModelResolver;
  readonly engines: EngineRegistry;
  readonly reader: WebReader;
  readonly usage: UsageRecorder;
  /** Async image and video tasks: submit, and read by the owning key. */
  readonly tasks: TaskService;
  /** Generated media; `downloadUrl` gives the absolute URLs clients fetch. */
  readonly blobs: BlobStore;
  /** Checks the signed download URLs served at GET /blobs/<key>. */
  readonly blobUrls: BlobUrlSigner;
  /** pino options, or false to log nothing (tests). */
  readonly logger: boolean | Record<string, unknown>;
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
  }
}
