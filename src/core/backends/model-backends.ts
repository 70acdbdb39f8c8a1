import { dirname, resolve } from 'node:path';
import type { ChatModel, TokenCounter } from '../chat/chat-model.ts';
import type { ImageGenerator } from '../media/image-generator.ts';
import type { LayoutParser } from '../ocr/layout-parser.ts';
import type { Transcriber } from '../media/transcriber.ts';
import type { VideoGenerator } from '../media/video-generator.ts';
import type { WebSearcher } from '../web/web-searcher.ts';
import type { ModelEntry } from '../config/config.schema.ts';
import { ApiError } from '../errors/api-error.ts';
import { engineBindings } from '../logging/engine-failure-log.ts';
import type { Logger } from '../logging/logger.ts';
import { instrumentBackend, type EngineCallObserver } from '../metrics/instrument-backend.ts';
import type { Capability } from '../models/capability.ts';
import { engineNotAvailable, type ModelResolver } from '../models/model-resolver.ts';
import type { Backend, BackendFactory, BackendResources } from './backend.ts';
import { limitChatConcurrency } from './concurrency-limit.ts';

/** Loads a tokenizer from a model's files (tokenizer.json and chat template). */
export type TokenizerFilesLoader = (tokenizerPath: string, chatTemplatePath: string | undefined) => TokenCounter;

/**
 * Turns a request's model name into the engine capability that serves it: resolves the catalog
 * entry (1211 / 1221), builds the entry's backend once, on first use, and checks that it has the
 * capability asked for.
 */
export class ModelBackends {
  readonly #models: ModelResolver;
  readonly #factories: ReadonlyMap<string, BackendFactory>;
  readonly #configDir: string;
  readonly #loadTokenizerFiles: TokenizerFilesLoader;
  readonly #resources: BackendResources;
  readonly #observer: EngineCallObserver | undefined;
  readonly #logger: Logger | undefined;
  readonly #backends = new Map<string, Backend>();
  readonly #fileTokenizers = new Map<string, TokenCounter>();
  readonly #limitedChats = new Map<string, ChatModel>();

  constructor(
    models: ModelResolver,
    /** By backend kind: the engine table of the composition root. */
    factories: ReadonlyMap<string, BackendFactory>,
    configPath: string | undefined,
    loadTokenizerFiles: TokenizerFilesLoader,
    resources: BackendResources,
    /** Times every engine call and counts its errors (the metrics); none in tests that need none. */
    observer?: EngineCallObserver,
    /** Where each failed engine call is logged, once, with the engine's model, kind and host. */
    logger?: Logger,
  ) {
    this.#resources = resources;
    this.#observer = observer;
    this.#logger = logger;
    this.#models = models;
    this.#factories = factories;
    this.#configDir = configPath === undefined ? process.cwd() : dirname(configPath);
    this.#loadTokenizerFiles = loadTokenizerFiles;
  }

  /** The model's chat engine, limited to `maxConcurrency` calls at once when the entry sets it. */
  chat(model: string): ChatModel {
    const cached = this.#limitedChats.get(model);
    if (cached !== undefined) return cached;
    const chat = this.#capability(model, 'chat', (backend) => backend.chat);
    const limit = this.#models.resolve(model, 'chat').maxConcurrency;
    if (limit === undefined) return chat;
    const limited = limitChatConcurrency(chat, limit);
    this.#limitedChats.set(model, limited);
    return limited;
  }

  image(model: string): ImageGenerator {
    return this.#capability(model, 'image', (backend) => backend.image);
  }

  video(model: string): VideoGenerator {
    return this.#capability(model, 'video', (backend) => backend.video);
  }

  transcriber(model: string): Transcriber {
    return this.#capability(model, 'transcribe', (backend) => backend.transcribe);
  }

  layoutParser(model: string): LayoutParser {
    return this.#capability(model, 'layout', (backend) => backend.layout);
  }

  search(engine: string): WebSearcher {
    return this.#capability(engine, 'search', (backend) => backend.search);
  }

  /** The model's own tokenizer files when configured (`tokenizerPath`), else the engine's tokenizer. */
  tokenizer(model: string): TokenCounter {
    const entry = this.#models.resolve(model, 'tokenize');
    if (entry.tokenizerPath === undefined) return this.#capability(model, 'tokenize', (backend) => backend.tokenizer);
    let counter = this.#fileTokenizers.get(model);
    if (counter === undefined) {
      const chatTemplatePath = entry.chatTemplatePath === undefined ? undefined : resolve(this.#configDir, entry.chatTemplatePath);
      try {
        counter = this.#loadTokenizerFiles(resolve(this.#configDir, entry.tokenizerPath), chatTemplatePath);
      } catch (error) {
        throw new ApiError('1221', `The tokenizer files of model '${model}' cannot be loaded: ${(error as Error).message}.`);
      }
      this.#fileTokenizers.set(model, counter);
    }
    return counter;
  }

  async close(): Promise<void> {
    const backends = [...this.#backends.values()];
    this.#backends.clear();
    await Promise.all(backends.map((backend) => backend.close?.()));
  }

  #capability<Found>(model: string, capability: Capability, pick: (backend: Backend) => Found | undefined): Found {
    const entry = this.#models.resolve(model, capability);
    const found = pick(this.#backend(model, entry));
    if (found === undefined) throw engineNotAvailable(model, entry, capability);
    return found;
  }

  #backend(model: string, entry: ModelEntry): Backend {
    let backend = this.#backends.get(model);
    if (backend === undefined) {
      const factory = this.#factories.get(entry.backend);
      backend = factory === undefined ? {} : factory({ modelName: model, entry, configDir: this.#configDir, resources: this.#resources });
      if (this.#observer !== undefined || this.#logger !== undefined) {
        backend = instrumentBackend(backend, model, this.#observer, this.#logger?.child(engineBindings(model, entry)));
      }
      this.#backends.set(model, backend);
    }
    return backend;
  }
}
