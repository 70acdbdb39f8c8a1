import type { ModelEntry } from '../config/config.schema.ts';
import type { BackendCapabilities } from '../models/capability.ts';
import type { SearchIndex } from '../web/search-index.ts';
import type { WebReader } from '../web/web-reader.ts';

/**
 * What one configured model's engine offers: a member per capability of the table in
 * core/models/capability.ts (`chat`, `tokenizer`, `image`…), each optional, and its lifecycle.
 */
export interface Backend extends BackendCapabilities {
  /**
   * False where the chat takes text parts only and refuses media parts (1214); a tokenizer read from
   * the model's own files (`tokenizerPath`) then refuses them the same way. Left out: the engine decides.
   */
  readonly takesMedia?: boolean;
  /**
   * Asks the engine, cheaply (no generation), whether it answers: resolves with what it reports of
   * itself, throws when it is unreachable or unhealthy. Used to bring a cooled-down deployment back
   * and by `config check --probe`; a backend without one is judged by its next real call.
   */
  probe?(signal: AbortSignal): Promise<ProbeResult>;
  /** Releases what the engine holds (loaded weights, sockets). */
  close?(): Promise<void>;
}

/** What an engine's probe reports of itself. */
export interface ProbeResult {
  /** The model names the engine serves (an OpenAI-compatible server's /models), when it lists them. */
  models?: string[];
  /** One short line on its state where it has no model list (`loaded`, a ComfyUI version…). */
  detail?: string;
}

/** Platform services an engine may build on (the local search index, the reader, the hf:// model files). */
export interface BackendResources {
  readonly searchIndex: SearchIndex;
  readonly reader: WebReader;
  /** Absent where no models directory is open (config check --probe): an hf:// file setting then cannot be used. */
  readonly modelFiles?: ModelFileLocator;
  /** Where an in-process engine says, once, what it did (a model loaded, on which device); absent: said nowhere. */
  readonly announce?: (fields: Readonly<Record<string, unknown>>, message: string) => void;
}

/** The hf:// files of the catalog (fetched from the hub by the platform): where each lives, and why one is not there yet. */
export interface ModelFileLocator {
  /** The local path of an hf:// URI; throws on a malformed one. */
  localPath(uri: string): string;
  /** Why the file cannot be used yet (downloading and how far, failed and why, not pulled), or undefined once it is in place. */
  notReadyReason(uri: string): string | undefined;
}

/** What a factory builds an engine from; `Settings` is its kind's settings (the engine folder's schema). */
export interface BackendContext<Settings extends ModelEntry = ModelEntry> {
  /** The public model name the catalog maps. */
  readonly modelName: string;
  readonly entry: Settings;
  /** Directory of relative paths in the config file (modelPath, tokenizerPath). */
  readonly configDir: string;
  readonly resources: BackendResources;
}

export type BackendFactory<Settings extends ModelEntry = ModelEntry> = (context: BackendContext<Settings>) => Backend;
