import type { ChatModel, TokenCounter } from '../chat/chat-model.ts';
import type { ImageGenerator } from '../media/image-generator.ts';
import type { Transcriber } from '../media/transcriber.ts';
import type { VideoGenerator } from '../media/video-generator.ts';
import type { LayoutParser } from '../ocr/layout-parser.ts';
import type { WebSearcher } from '../web/web-searcher.ts';
import { defaultChatModel } from './platform-models.ts';

/**
 * How an engine method answers: `call` with one promise, `stream` with parts as the engine makes
 * them. The routing and the metrics treat the two differently (a stream is committed to its
 * engine once its first part is in, and timed to its end).
 */
type MethodKind = 'call' | 'stream';

/** What every engine method takes: one request that carries the caller's signal. */
export interface EngineRequest {
  readonly signal: AbortSignal;
}

/** The kind of each method of an engine interface, read from its signature: a promise is a call, an async iterable a stream. */
type MethodKinds<Engine> = {
  readonly [Name in keyof Engine]-?: NonNullable<Engine[Name]> extends (request: never) => Promise<unknown>
    ? 'call'
    : NonNullable<Engine[Name]> extends (request: never) => AsyncIterable<unknown>
      ? 'stream'
      : never;
};

/** One capability as the table holds it: `Member` names the Backend member that holds `Engine`, its interface. */
interface EngineCapabilityRow<Member extends string, Engine> {
  /** Words used in messages ("no engine serves glm-4.7 for chat completions"). */
  readonly label: string;
  /** The optional member of `Backend` an engine that offers it fills. */
  readonly member: Member;
  /** Every method of `Engine` and how it answers; an optional method is offered by the engines that have it. */
  readonly methods: MethodKinds<Engine>;
  /** The catalog line that serves it, shown in "add this to your config" messages. */
  readonly example: string;
  /**
   * Answers differ between engine kinds (token counts do): a routed call goes only to deployments
   * of the kind of the first deployment that offers it, never to another kind on failover.
   */
  readonly oneEngineKind?: true;
  /** Type only, never set: the interface the member holds. */
  readonly engine?: Engine;
}

/** A row of the table for an engine interface (`engineCapability<ChatModel>()({...})`): the methods are checked against it. */
function engineCapability<Engine>() {
  return <const Member extends string>(row: Omit<EngineCapabilityRow<Member, Engine>, 'engine'>): EngineCapabilityRow<Member, Engine> => row;
}

const localChat = `{ alias: ${defaultChatModel} } (the local model served with no configuration), or { backend: openai-compatible, baseUrl: http://gpu-host:8000/v1 }`;

/**
 * Every capability a request may need, each endpoint exactly one: the one list a new capability
 * is added to (docs/architecture.md, "Adding a capability"). `Backend`, the routing, the metrics and
 * `ModelBackends.capability` are built from it. `read` is served by the platform's own reader, not
 * by a model's engine, so it has a label only.
 */
export const capabilities = {
  chat: engineCapability<ChatModel>()({
    label: 'chat completions',
    member: 'chat',
    methods: { generate: 'call', stream: 'stream' },
    example: localChat,
  }),
  tokenize: engineCapability<TokenCounter>()({
    label: 'the tokenizer',
    member: 'tokenizer',
    methods: { countPromptTokens: 'call' },
    example: localChat,
    oneEngineKind: true,
  }),
  image: engineCapability<ImageGenerator>()({
    label: 'image generation',
    member: 'image',
    methods: { generate: 'call' },
    example:
      '{ backend: comfyui, baseUrl: http://gpu-host:8188, workflow: ./workflows/image.json } (the repository ships workflows/image.json, an SDXL text-to-image graph)',
  }),
  video: engineCapability<VideoGenerator>()({
    label: 'video generation',
    member: 'video',
    methods: { generate: 'call' },
    example:
      '{ backend: comfyui, baseUrl: http://gpu-host:8188, workflow: ./workflows/video.json } (the repository ships workflows/video.json, a Wan 2.1 text-to-video graph)',
  }),
  search: engineCapability<WebSearcher>()({
    label: 'web search',
    member: 'search',
    methods: { search: 'call' },
    example: '{ backend: local-index }',
  }),
  read: { label: 'the web reader', example: '{ backend: zai, apiKey: ${ZAI_API_KEY} }' },
  layout: engineCapability<LayoutParser>()({
    label: 'layout parsing',
    member: 'layout',
    methods: { parse: 'call' },
    example: '{ backend: paddle-ocr }',
  }),
  transcribe: engineCapability<Transcriber>()({
    label: 'audio transcription',
    member: 'transcribe',
    methods: { transcribe: 'call', stream: 'stream' },
    example: '{ backend: openai-transcription, baseUrl: http://gpu-host:8000/v1 }',
  }),
} as const;

type CapabilityTable = typeof capabilities;

/** What a request asks an engine to do; each endpoint needs exactly one capability. */
export type Capability = keyof CapabilityTable;

/** The capabilities a model's engine serves (all but the platform's own reader). */
export type EngineCapability = {
  [Kind in Capability]: CapabilityTable[Kind] extends EngineCapabilityRow<string, unknown> ? Kind : never;
}[Capability];

/** The interface an engine implements for `Kind` (`ChatModel` for `chat`). */
export type EngineOf<Kind extends EngineCapability> = CapabilityTable[Kind] extends EngineCapabilityRow<string, infer Engine> ? Engine : never;

/** The Backend member that holds `Kind` (`tokenizer` for `tokenize`). */
type MemberOf<Kind extends EngineCapability> = CapabilityTable[Kind]['member'];

/** The capability members of `Backend`, each optional: an engine fills those it offers. */
export type BackendCapabilities = { readonly [Kind in EngineCapability as MemberOf<Kind>]?: EngineOf<Kind> };

/** Where a caller gets the engine of one capability for a model: `ModelBackends`, or a fake in a test. */
export interface CapabilitySource<Kind extends EngineCapability> {
  capability(model: string, kind: Kind): EngineOf<Kind>;
}

/** One method of one capability, as the wrappers around every engine method meet it. */
export interface EngineMethod {
  readonly capability: EngineCapability;
  readonly member: MemberOf<EngineCapability>;
  readonly name: string;
  readonly kind: MethodKind;
  readonly oneEngineKind: boolean;
}

/** Every method of every engine capability, in table order. */
export const engineMethods: readonly EngineMethod[] = Object.entries(capabilities).flatMap(([capability, row]) =>
  'member' in row
    ? Object.entries(row.methods).map(([name, kind]) => ({
        capability: capability as EngineCapability,
        member: row.member,
        name,
        kind: kind as MethodKind,
        oneEngineKind: 'oneEngineKind' in row && row.oneEngineKind === true,
      }))
    : [],
);
