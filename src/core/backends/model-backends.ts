import { dirname, resolve } from 'node:path';
import type { TokenCounter } from '../chat/chat-model.ts';
import { textOnlyCounter } from '../chat/text-only.ts';
import type { CatalogEntry } from '../config/config.schema.ts';
import { deploymentsOf, routingOf } from '../config/model-deployments.ts';
import { ApiError } from '../errors/api-error.ts';
import { engineBindings } from '../logging/engine-failure-log.ts';
import type { Logger } from '../logging/logger.ts';
import { instrumentBackend, type EngineCallObserver } from '../metrics/instrument-backend.ts';
import { capabilities, type Capability, type EngineCapability, type EngineOf } from '../models/capability.ts';
import { engineNotAvailable, type ModelResolver } from '../models/model-resolver.ts';
import { DeploymentHealth, defaultCoolDown, type CoolDownPolicy } from '../routing/deployment-health.ts';
import { DeploymentRouter, type DeploymentState, type RoutedDeployment } from '../routing/deployment-router.ts';
import { InProcessDeploymentSlots, type DeploymentSlots } from '../routing/deployment-slots.ts';
import { routedBackend, type RouterTurn } from '../routing/routed-backend.ts';
import type { Backend, BackendFactory, BackendResources } from './backend.ts';

/** Loads a tokenizer from a model's files (tokenizer.json and chat template). */
export type TokenizerFilesLoader = (tokenizerPath: string, chatTemplatePath: string | undefined) => TokenCounter;

/** What the model backends are built from: the catalog, the engine kinds, and what the engines and the routing share. */
export interface ModelBackendsOptions {
  readonly models: ModelResolver;
  /** By backend kind: the engine table of the composition root. */
  readonly factories: ReadonlyMap<string, BackendFactory>;
  /** The config file, whose directory relative paths (modelPath, tokenizerPath) start from; absent: the working directory. */
  readonly configPath?: string | undefined;
  readonly loadTokenizerFiles: TokenizerFilesLoader;
  readonly resources: BackendResources;
  /** Times every engine call and counts its errors (the metrics); none in tests that need none. */
  readonly observer?: EngineCallObserver | undefined;
  /** Where each failed engine call is logged, once, with the engine's model, kind and host. */
  readonly logger?: Logger | undefined;
  /** Where each deployment's `maxConcurrency` is counted (default: in this process). */
  readonly deploymentSlots?: DeploymentSlots | undefined;
  /** How long a failing deployment is left alone (default 1 s, doubling to 10 s). */
  readonly coolDown?: CoolDownPolicy | undefined;
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

  constructor(options: ModelBackendsOptions) {
    this.#models = options.models;
    this.#factories = options.factories;
    this.#configDir = options.configPath === undefined ? process.cwd() : dirname(options.configPath);
    this.#loadTokenizerFiles = options.loadTokenizerFiles;
    this.#resources = options.resources;
    this.#observer = options.observer;
    this.#logger = options.logger;
    this.#slots = options.deploymentSlots ?? new InProcessDeploymentSlots();
    this.#coolDown = options.coolDown ?? defaultCoolDown;
  }

  /**
   * The engine that serves `kind` for `model` (`capability('glm-4.7', 'chat')` is a ChatModel):
   * every call routed among the model's deployments, each running at most its `maxConcurrency`
   * calls at once. 1211 for a name nobody knows, 1221 where no engine of the model offers `kind`.
   */
  capability<Kind extends EngineCapability>(model: string, kind: Kind): EngineOf<Kind> {
    if (kind === 'tokenize') return this.#tokenizer(model) as EngineOf<Kind>;
    return this.#routedCapability(model, kind);
  }

  /**
   * The model's own tokenizer files when configured (`tokenizerPath`), else the engine's tokenizer.
   * Files count whatever they are given, so where every engine of the model takes text only, media
   * parts are refused first, as its chat refuses them.
   */
  #tokenizer(model: string): TokenCounter {
    const entry = this.#models.resolve(model, 'tokenize');
    if (entry.tokenizerPath === undefined) return this.#routedCapability(model, 'tokenize');
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

  /** The member of the model's routed Backend that holds `kind`. */
  #routedCapability<Kind extends EngineCapability>(model: string, kind: Kind): EngineOf<Kind> {
    const entry = this.#models.catalogEntry(model, kind);
    const found = this.#routedModel(model, entry, kind).backend[capabilities[kind].member];
    if (found === undefined) throw engineNotAvailable(model, this.#models.resolve(model, kind), kind);
    return found as EngineOf<Kind>;
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
