import { dirname } from 'node:path';
import type { ChatModel, TokenCounter } from '../chat/chat-model.ts';
import type { BackendKind } from '../config/backend-kinds.ts';
import type { ModelEntry } from '../config/config.schema.ts';
import type { Capability } from '../models/capability.ts';
import { engineNotAvailable, type ModelResolver } from '../models/model-resolver.ts';
import type { Backend, BackendFactory } from './backend.ts';

/**
 * Turns a request's model name into the engine capability that serves it: resolves the catalog
 * entry (1211 / 1221), builds the entry's backend once, on first use, and checks that it has the
 * capability asked for.
 */
export class EngineRegistry {
  readonly #models: ModelResolver;
  readonly #factories: Partial<Record<BackendKind, BackendFactory>>;
  readonly #configDir: string;
  readonly #backends = new Map<string, Backend>();

  constructor(models: ModelResolver, factories: Partial<Record<BackendKind, BackendFactory>>, configPath: string | undefined) {
    this.#models = models;
    this.#factories = factories;
    this.#configDir = configPath === undefined ? process.cwd() : dirname(configPath);
  }

  chat(model: string): ChatModel {
    return this.#capability(model, 'chat', (backend) => backend.chat);
  }

  tokenizer(model: string): TokenCounter {
    return this.#capability(model, 'tokenize', (backend) => backend.tokenizer);
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
      const factory = this.#factories[entry.backend];
      backend = factory === undefined ? {} : factory({ modelName: model, entry, configDir: this.#configDir });
      this.#backends.set(model, backend);
    }
    return backend;
  }
}
