import type { ModelEntry } from '../config/config.schema.ts';
import type { ChatModel, TokenCounter } from '../chat/chat-model.ts';

/** The capabilities one configured model's engine offers; each is optional (DESIGN "Capabilities"). */
export interface Backend {
  readonly chat?: ChatModel;
  readonly tokenizer?: TokenCounter;
  /** Releases what the engine holds (loaded weights, sockets). */
  close?(): Promise<void>;
}

export interface BackendContext {
  /** The public model name the catalog maps. */
  readonly modelName: string;
  readonly entry: ModelEntry;
  /** Directory of relative paths in the config file (modelPath, tokenizerPath). */
  readonly configDir: string;
}

export type BackendFactory = (context: BackendContext) => Backend;
