import { dirname, resolve } from 'node:path';
import type { ChatModel, TokenCounter } from '../chat/chat-model.ts';
import { textOnlyCounter } from '../chat/text-only.ts';
import type { ImageGenerator } from '../media/image-generator.ts';
import type { LayoutParser } from '../ocr/layout-parser.ts';
import type { Transcriber } from '../media/transcriber.ts';
import type { VideoGenerator } from '../media/video-generator.ts';
import type { WebSearcher } from '../web/web-searcher.ts';
import type { CatalogEntry } from '../config/config.schema.ts';
import { deploymentsOf, routingOf } from '../config/model-deployments.ts';
import { ApiError } from '../errors/api-error.ts';
import { engineBindings } from '../logging/engine-failure-log.ts';
import type { Logger } from '../logging/logger.ts';
import { instrumentBackend, type EngineCallObserver } from '../metrics/instrument-backend.ts';
import type { Capability } from '../models/capability.ts';
import { engineNotAvailable, type ModelResolver } from '../models/model-resolver.ts';
import { DeploymentHealth, defaultCoolDown, type CoolDownPolicy } from '../routing/deployment-health.ts';
import { DeploymentRouter, type DeploymentState, type RoutedDeployment } from '../routing/deployment-router.ts';
import { InProcessDeploymentSlots, type DeploymentSlots } from '../routing/deployment-slots.ts';
import { routedBackend, type RouterTurn } from '../routing/routed-backend.ts';
import type { Backend, BackendFactory, BackendResources } from './backend.ts';

/** Loads a tokenizer from a model's files (tokenizer.json and chat template). */
export type TokenizerFilesLoader = (tokenizerPath: string, chatTemplatePath: string | undefined) => TokenCounter;

export interface ModelBackendsOptions {
  /** Where each deployment's `maxConcurrency` is counted (default: in this process). */
  readonly deploymentSlots?: DeploymentSlots;
  /** How long a failing deployment is left alone (default 1 s, doubling to 10 s). */
  readonly coolDown?: CoolDownPolicy;
}

/** A configured model's engines: the router over its deployments and the Backend that routes through it. */
interface RoutedModel {
  readonly router: DeploymentRouter;
  readonly backend: Backend;
}

/**
 * Turns a request's model name into the engine capability that serves it: resolves the catalog
 * entry (1211 / 1221), builds the model's deployments once, on first use (each its own Backend,
 * instrumented under its deployment name), and routes every call among them
 * (core/routing: health, failover, fallback models).
 */
export class ModelBackends {
  readonly #models: ModelResolver;
  readonly #factories: ReadonlyMap<string, BackendFactory>;
  readonly #configDir: string;
  readonly #loadTokenizerFiles: TokenizerFilesLoader;
  readonly #resources: BackendResources;
  readonly #observer: EngineCallObserver | undefined;
  readonly #logger: Logger | undefined;
  readonly #slots: DeploymentSlots;
  readonly #coolDown: CoolDownPolicy;
  readonly #routed = new Map<string, RoutedModel>();
  readonly #fileTokenizers = new Map<string, TokenCounter>();

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
    options: ModelBackendsOptions = {},
  ) {
    this.#resources = resources;
    this.#observer = observer;
    this.#logger = logger;
    this.#models = models;
    this.#factories = factories;
    this.#configDir = configPath === undefined ? process.cwd() : dirname(configPath);
    this.#loadTokenizerFiles = loadTokenizerFiles;
    this.#slots = options.deploymentSlots ?? new InProcessDeploymentSlots();
    this.#coolDown = options.coolDown ?? defaultCoolDown;
  }

  /** The model's chat engine; each deployment runs at most its `maxConcurrency` calls at once. */
  chat(model: string): ChatModel {
    return this.#capability(model, 'chat', (backend) => backend.chat);
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

  /**
   * The model's own tokenizer files when configured (`tokenizerPath`), else the engine's tokenizer.
   * Files count whatever they are given, so where every engine of the model takes text only, media
   * parts are refused first, as its chat refuses them.
   */
  tokenizer(model: string): TokenCounter {
    const entry = this.#models.resolve(model, 'tokenize');
    if (entry.tokenizerPath === undefined) return this.#capability(model, 'tokenize', (backend) => backend.tokenizer);
    let counter = this.#fileTokenizers.get(model);
    if (counter === undefined) {
      try {
        const chatTemplatePath = entry.chatTemplatePath === undefined ? undefined : this.#localFile(entry.chatTemplatePath);
        counter = this.#loadTokenizerFiles(this.#localFile(entry.tokenizerPath), chatTemplatePath);
      } catch (error) {
        throw new ApiError('1221', `The tokenizer files of model '${model}' cannot be loaded: ${(error as Error).message}.`);
      }
      const { router } = this.#routedModel(model, this.#models.catalogEntry(model, 'tokenize'), 'tokenize');
      if (router.deployments.every((deployment) => deployment.backend.takesMedia === false)) counter = textOnlyCounter(counter, model);
      this.#fileTokenizers.set(model, counter);
    }
    return counter;
  }

  /** The health of every deployment of the models built so far (a model is built on its first call). */
  deploymentStates(): DeploymentState[] {
    return [...this.#routed.values()].flatMap(({ router }) => router.states());
  }

  async close(): Promise<void> {
    const routed = [...this.#routed.values()];
    this.#routed.clear();
    for (const { router } of routed) router.close();
    await Promise.all(routed.flatMap(({ router }) => router.deployments.map((deployment) => deployment.backend.close?.())));
    await this.#slots.close();
  }

  /** A file setting's path on disk: relative to the config file, or an hf:// file once it is in place (else why not, thrown). */
  #localFile(path: string): string {
    if (!path.startsWith('hf://')) return resolve(this.#configDir, path);
    const files = this.#resources.modelFiles;
    if (files === undefined) throw new Error(`${path} is fetched only by a server with its models directory`);
    const notReady = files.notReadyReason(path);
    if (notReady !== undefined) throw new Error(`the platform ${notReady}`);
    return files.localPath(path);
  }

  #capability<Found>(model: string, capability: Capability, pick: (backend: Backend) => Found | undefined): Found {
    const entry = this.#models.catalogEntry(model, capability);
    const found = pick(this.#routedModel(model, entry, capability).backend);
    if (found === undefined) throw engineNotAvailable(model, this.#models.resolve(model, capability), capability);
    return found;
  }

  #routedModel(model: string, entry: CatalogEntry, capability: Capability): RoutedModel {
    let routed = this.#routed.get(model);
    if (routed === undefined) {
      const routing = routingOf(entry);
      const router = new DeploymentRouter(model, this.#deployments(model, entry), routing, this.#slots);
      // Fallback models are looked up at call time (built on their first use); their own fallbacks are not followed, so no chain loops.
      const turns = (): RouterTurn[] => [
        { router },
        ...routing.fallbacks.flatMap((fallback) => {
          const fallbackRouter = this.#fallbackRouter(fallback, capability);
          return fallbackRouter === undefined ? [] : [{ router: fallbackRouter, fallbackModel: fallback }];
        }),
      ];
      routed = { router, backend: routedBackend(turns) };
      this.#routed.set(model, routed);
    }
    return routed;
  }

  #fallbackRouter(model: string, capability: Capability): DeploymentRouter | undefined {
    try {
      return this.#routedModel(model, this.#models.catalogEntry(model, capability), capability).router;
    } catch {
      // A fallback the catalog cannot resolve for this capability is passed over.
      return undefined;
    }
  }

  #deployments(model: string, entry: CatalogEntry): RoutedDeployment[] {
    return deploymentsOf(model, entry).map((deployment) => {
      const factory = this.#factories.get(deployment.entry.backend);
      const raw: Backend =
        factory === undefined ? {} : factory({ modelName: model, entry: deployment.entry, configDir: this.#configDir, resources: this.#resources });
      const backend =
        this.#observer !== undefined || this.#logger !== undefined
          ? instrumentBackend(
              raw,
              model,
              this.#observer,
              this.#logger?.child({ ...engineBindings(model, deployment.entry), deployment: deployment.name }),
              deployment.name,
              deployment.entry.backend,
            )
          : raw;
      const probe = raw.probe?.bind(raw);
      return {
        name: deployment.name,
        kind: deployment.entry.backend,
        backend,
        health: new DeploymentHealth(this.#coolDown, probe),
        weight: deployment.weight,
        priority: deployment.priority,
        maxConcurrency: deployment.entry.maxConcurrency,
        inFlight: 0,
      };
    });
  }
}
