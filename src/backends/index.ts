import { Type, type Static, type TObject } from '@sinclair/typebox';
import type { ModelEntry } from '../core/config/config.schema.ts';
import type { BackendFactory } from '../core/backends/backend.ts';
import type { ModelEntrySchema } from '../core/config/model-entry-check.ts';
import { createComfyUiBackend } from './comfyui/comfyui.backend.ts';
import { ComfyUiSettingsSchema } from './comfyui/comfyui-settings.ts';
import { createGlmOcrBackend } from './glm-ocr/glm-ocr.backend.ts';
import { GlmOcrSettingsSchema } from './glm-ocr/glm-ocr-settings.ts';
import { createLlamaCppBackend } from './llama-cpp/llama-cpp.backend.ts';
import { LlamaCppSettingsSchema } from './llama-cpp/llama-cpp-settings.ts';
import { createLocalIndexBackend } from './local-index/local-index.backend.ts';
import { LocalIndexSettingsSchema } from './local-index/local-index-settings.ts';
import { createOpenAiCompatibleBackend } from './openai-compatible/openai-compatible.backend.ts';
import { OpenAiCompatibleSettingsSchema } from './openai-compatible/openai-compatible-settings.ts';
import { createOpenAiImagesBackend } from './openai-images/openai-images.backend.ts';
import { OpenAiImagesSettingsSchema } from './openai-images/openai-images-settings.ts';
import { createOpenAiTranscriptionBackend } from './openai-transcription/openai-transcription.backend.ts';
import { OpenAiTranscriptionSettingsSchema } from './openai-transcription/openai-transcription-settings.ts';
import { createPaddleOcrBackend } from './paddle-ocr/paddle-ocr.backend.ts';
import { PaddleOcrSettingsSchema } from './paddle-ocr/paddle-ocr-settings.ts';
import { createSearxngBackend } from './searxng/searxng.backend.ts';
import { SearxngSettingsSchema } from './searxng/searxng-settings.ts';
import { createZaiBackend } from './zai/zai.backend.ts';
import { ZaiSettingsSchema } from './zai/zai-settings.ts';
import { createWhisperCppBackend } from './whisper-cpp/whisper-cpp.backend.ts';
import { WhisperCppSettingsSchema } from './whisper-cpp/whisper-cpp-settings.ts';

/** One engine kind: the settings schema of its config entries and the factory that builds it from them. */
interface BackendDefinition<Settings extends TObject> {
  readonly settings: Settings;
  readonly create: BackendFactory<Static<Settings> & ModelEntry>;
}

const backend = <Settings extends TObject>(settings: Settings, create: BackendFactory<Static<Settings> & ModelEntry>): BackendDefinition<Settings> => ({
  settings,
  create,
});

/**
 * The one table of engine kinds: a kind's name (the `backend` of a config entry, part of the public
 * configuration), its settings and its factory. Adding an engine is a folder and a line here.
 */
const backends = {
  'openai-compatible': backend(OpenAiCompatibleSettingsSchema, createOpenAiCompatibleBackend),
  'llama-cpp': backend(LlamaCppSettingsSchema, createLlamaCppBackend),
  zai: backend(ZaiSettingsSchema, createZaiBackend),
  'openai-images': backend(OpenAiImagesSettingsSchema, createOpenAiImagesBackend),
  comfyui: backend(ComfyUiSettingsSchema, createComfyUiBackend),
  'paddle-ocr': backend(PaddleOcrSettingsSchema, createPaddleOcrBackend),
  'glm-ocr': backend(GlmOcrSettingsSchema, createGlmOcrBackend),
  'openai-transcription': backend(OpenAiTranscriptionSettingsSchema, createOpenAiTranscriptionBackend),
  'whisper-cpp': backend(WhisperCppSettingsSchema, createWhisperCppBackend),
  'local-index': backend(LocalIndexSettingsSchema, createLocalIndexBackend),
  searxng: backend(SearxngSettingsSchema, createSearxngBackend),
};

/** A config file's model entry: the settings of one engine kind, told apart by `backend`. */
export const modelEntrySchema: ModelEntrySchema = Type.Union(Object.values(backends).map((definition) => definition.settings as TObject));

/**
 * The factories by kind, for the engine registry. Each takes its own kind's settings: the loader
 * has checked every configured entry against them before an engine is built.
 */
export const backendFactories: ReadonlyMap<string, BackendFactory> = new Map(
  Object.entries(backends).map(([kind, definition]) => [kind, definition.create as BackendFactory]),
);
