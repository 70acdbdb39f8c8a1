import type { PlatformConfig } from '../core/config/config.schema.ts';
import type { BlobStore } from '../core/blobs/blob-store.ts';
import type { ModelBackends } from '../core/backends/model-backends.ts';
import type { FileStore } from '../core/files/file-store.ts';
import type { AgentConversationStore } from './conversation-store.ts';
import type { TaskService } from '../core/tasks/task.ts';

/** A content part of an agent message; `url` is the image/file/video URL the part carries. */
export interface AgentPart {
  readonly type: 'text' | 'image_url' | 'file_url' | 'video_url';
  readonly text?: string;
  readonly url?: string;
}

export interface AgentMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string | readonly AgentPart[];
}

/** One call of POST /v1/agents, validated by the API layer. */
export interface AgentInput {
  readonly messages: readonly AgentMessage[];
  /** The agent's custom_variables (already checked against its schema); {} when none were sent. */
  readonly variables: Readonly<Record<string, unknown>>;
  readonly conversationId?: string;
  /** The calling key: agents store and read only what this key owns. */
  readonly ownerKeyId: string;
  readonly requestId: string;
  /** Aborted when the client leaves. */
  readonly signal: AbortSignal;
}

export interface AgentUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Engine calls the agent made. */
  readonly calls: number;
}

/**
 * What an agent run yields: text deltas of its answer, then exactly one `done`. An error thrown
 * before the first delta becomes an HTTP error; after it, an in-band error frame.
 */
export type AgentEvent =
  | { readonly kind: 'delta'; readonly text: string }
  | {
      readonly kind: 'done';
      readonly finishReason: 'stop' | 'length' | 'network_error';
      readonly usage: AgentUsage;
      readonly conversationId?: string;
      /** Set by agents whose result is fetched later from /v1/agents/async-result. */
      readonly asyncId?: string;
      readonly status?: 'pending' | 'success' | 'failed';
    };

/** The platform services agents build on. */
export interface AgentServices {
  readonly config: PlatformConfig;
  readonly backends: ModelBackends;
  readonly tasks: TaskService;
  readonly blobs: BlobStore;
  /** Files uploaded through /files (translation glossaries). */
  readonly files: FileStore;
  /** Stored agent conversations (slides_glm_agent). */
  readonly conversations: AgentConversationStore;
}

/** POST /v1/agents/conversation (slides_glm_agent). */
export interface ConversationQuery {
  readonly ownerKeyId: string;
  readonly conversationId: string;
  readonly includePdf: boolean;
  /** Size overrides of given slide positions (from 1), in pt. */
  readonly pages: readonly { readonly position: number; readonly width: number; readonly height: number }[];
}

export interface ConversationItem {
  readonly type: 'file_url' | 'image_url';
  readonly url: string;
  readonly tagCn: string;
  readonly tagEn: string;
}

/** The state of an asynchronous agent run (vidu_template_agent), for /v1/agents/async-result. */
export type AsyncAgentResult =
  | { readonly status: 'pending' }
  | { readonly status: 'success'; readonly videoUrl: string; readonly coverUrl?: string }
  | { readonly status: 'failed'; readonly error: { readonly code: string; readonly message: string } };

/** One agent of /v1/agents. The optional methods serve the agents that have those endpoints. */
export interface Agent {
  run(input: AgentInput): AsyncIterable<AgentEvent>;
  /**
   * The stored conversation's output (slides_glm_agent); undefined when the key has no such
   * conversation. `origin` is this server's public origin, for the signed download URLs.
   */
  conversation?(query: ConversationQuery, origin: string): Promise<readonly ConversationItem[] | undefined>;
  /** The state of an async run; undefined when the key has no such run. */
  asyncResult?(ownerKeyId: string, asyncId: string, origin: string): Promise<AsyncAgentResult | undefined>;
  /** Releases what the agent holds (a browser). */
  close?(): Promise<void>;
}
