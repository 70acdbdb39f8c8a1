import type { Agent, AgentEvent, AgentInput, AgentServices } from '../../../src/agents/agent.ts';
import { createTranslationAgent } from '../../../src/agents/translation/translation-agent.ts';
import { backendFactories } from '../../../src/backends/index.ts';
import type { PlatformConfig } from '../../../src/core/config/config.schema.ts';
import type { BackendResources } from '../../../src/core/backends/backend.ts';
import { ModelBackends } from '../../../src/core/backends/model-backends.ts';
import type { FileStore } from '../../../src/core/files/file-store.ts';
import { ModelResolver } from '../../../src/core/models/model-resolver.ts';
import {
  jsonReply,
  sseReply,
  vllmCompletion,
  vllmReasoningStream,
  type FakeOpenAiServer,
  type FakeUsage,
  type RecordedRequest,
  type ReplyScript,
} from '../../helpers/fake-openai-server.ts';

/**
 * Scripts one engine call: the same answer as a JSON completion or, when the client asked for a
 * stream, as vLLM stream chunks of a few characters each (so deltas really arrive in pieces).
 */
export function answer(text: string, usage: FakeUsage = { promptTokens: 10, completionTokens: 5 }): ReplyScript {
  return (request) =>
    request.body['stream'] === true
      ? sseReply(vllmReasoningStream({ content: text.match(/[\s\S]{1,4}/g) ?? [], usage }))
      : jsonReply(vllmCompletion({ content: text, usage }));
}

/** The messages the engine received in one call. */
export function messagesOf(request: RecordedRequest | undefined): { role: string; content: string }[] {
  return (request?.body['messages'] ?? []) as { role: string; content: string }[];
}

/** The whole prompt of one call as one string, for "contains" checks. */
export function promptOf(request: RecordedRequest | undefined): string {
  return messagesOf(request)
    .map((message) => `${message.role}: ${message.content}`)
    .join('\n');
}

/** The user message of one call (the task; the system message holds the rules and the glossary). */
export function userPromptOf(request: RecordedRequest | undefined): string {
  return messagesOf(request).find((message) => message.role === 'user')?.content ?? '';
}

/**
 * Uploaded files in memory, per owner as the real store keeps them apart. The agent only reads
 * glossaries, so `store` offers `read` and fails the test on any other FileStore method.
 */
export class MemoryFileStore {
  readonly #files = new Map<string, Buffer>();
  readonly store: FileStore = new Proxy({} as FileStore, {
    get: (_target, property) => {
      if (property === 'read') return async (ownerKeyId: string, id: string) => this.#files.get(`${ownerKeyId}/${id}`);
      throw new Error(`the translation agent was not expected to use files.${String(property)}`);
    },
  });

  put(ownerKeyId: string, id: string, content: string | Buffer): void {
    this.#files.set(`${ownerKeyId}/${id}`, typeof content === 'string' ? Buffer.from(content) : content);
  }
}

/** A service the translation agent must not touch: any use fails the test, naming it. */
function unused<Service extends object>(name: string): Service {
  return new Proxy({} as Service, {
    get(_target, property) {
      throw new Error(`the translation agent was not expected to use ${name}.${String(property)}`);
    },
  });
}

/**
 * The translation agent on its real services: a catalog whose model `translator` is an
 * openai-compatible engine at the fake, and the given files.
 */
export function translationAgent(engine: FakeOpenAiServer, files: MemoryFileStore, config?: PlatformConfig): { agent: Agent; backends: ModelBackends } {
  const platformConfig: PlatformConfig = config ?? {
    models: { translator: { backend: 'openai-compatible', baseUrl: engine.baseUrl, upstreamModel: 'fake/translator' } },
    agents: { general_translation: { model: 'translator' } },
  };
  const backends = new ModelBackends({
    models: new ModelResolver(platformConfig.models ?? {}),
    factories: backendFactories,
    loadTokenizerFiles: () => unused('tokenizer files'),
    resources: unused<BackendResources>('backend resources'),
  });
  const services: AgentServices = {
    config: platformConfig,
    backends,
    tasks: unused('tasks'),
    blobs: unused('blobs'),
    files: files.store,
    conversations: unused('conversations'),
  };
  return { agent: createTranslationAgent(services), backends };
}

export const owner = 'key-owner';

export function translationInput(text: string, variables: Record<string, unknown> = {}, signal = new AbortController().signal): AgentInput {
  return { messages: [{ role: 'user', content: [{ type: 'text', text }] }], variables, ownerKeyId: owner, requestId: 'req-translation-1', signal };
}

/** Runs the agent to its end: the deltas, the joined text and the `done` event. */
export async function runToEnd(agent: Agent, input: AgentInput) {
  const deltas: string[] = [];
  let done: Extract<AgentEvent, { kind: 'done' }> | undefined;
  for await (const event of agent.run(input)) {
    if (done !== undefined) throw new Error('an event came after done');
    if (event.kind === 'delta') deltas.push(event.text);
    else done = event;
  }
  if (done === undefined) throw new Error('the run ended without done');
  return { deltas, text: deltas.join(''), done };
}
