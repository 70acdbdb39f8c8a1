import type { Static } from '@sinclair/typebox';
import type { ModelEntry } from '../core/config/config.schema.ts';
import type { BackendFactory } from '../core/backends/backend.ts';
import { backendSettings } from './model-entry-schema.ts';
import { createComfyUiBackend } from './comfyui/comfyui.backend.ts';
import { createGlmOcrBackend } from './glm-ocr/glm-ocr.backend.ts';
import { createLlamaCppBackend } from './llama-cpp/llama-cpp.backend.ts';
import { createLocalIndexBackend } from './local-index/local-index.backend.ts';
import { createOpenAiCompatibleBackend } from './openai-compatible/openai-compatible.backend.ts';
import { createOpenAiImagesBackend } from './openai-images/openai-images.backend.ts';
import { createOpenAiTranscriptionBackend } from './openai-transcription/openai-transcription.backend.ts';
import { createPaddleOcrBackend } from './paddle-ocr/paddle-ocr.backend.ts';
import { createSearxngBackend } from './searxng/searxng.backend.ts';
import { createZaiBackend } from './zai/zai.backend.ts';
import { createWhisperCppBackend } from './whisper-cpp/whisper-cpp.backend.ts';

export { modelEntrySchema } from './model-entry-schema.ts';

type BackendKind = keyof typeof backendSettings;

/**
 * The factory of each engine kind of backendSettings (model-entry-schema.ts), each typed with its
 * own kind's settings: adding an engine is a folder and a line in both tables, and a kind missing
 * from either does not compile.
 */
const factories: { readonly [Kind in BackendKind]: BackendFactory<Static<(typeof backendSettings)[Kind]> & ModelEntry> } = {
  'openai-compatible': createOpenAiCompatibleBackend,
  'llama-cpp': createLlamaCppBackend,
  zai: createZaiBackend,
  'openai-images': createOpenAiImagesBackend,
  comfyui: createComfyUiBackend,
  'paddle-ocr': createPaddleOcrBackend,
  'glm-ocr': createGlmOcrBackend,
  'openai-transcription': createOpenAiTranscriptionBackend,
  'whisper-cpp': createWhisperCppBackend,
  'local-index': createLocalIndexBackend,
  searxng: createSearxngBackend,
};

/**
 * The factories by kind, for the engine registry. Each takes its own kind's settings: the loader
 * has checked every configured entry against them before an engine is built.
 */
export const backendFactories: ReadonlyMap<string, BackendFactory> = new Map(
  Object.entries(factories).map(([kind, create]) => [kind, create as BackendFactory]),
);
