import { Type, type TObject } from '@sinclair/typebox';
import type { ModelEntrySchema } from '../core/config/model-entry-check.ts';
import { ComfyUiSettingsSchema } from './comfyui/comfyui-settings.ts';
import { GlmOcrSettingsSchema } from './glm-ocr/glm-ocr-settings.ts';
import { LlamaCppSettingsSchema } from './llama-cpp/llama-cpp-settings.ts';
import { LocalIndexSettingsSchema } from './local-index/local-index-settings.ts';
import { OpenAiCompatibleSettingsSchema } from './openai-compatible/openai-compatible-settings.ts';
import { OpenAiImagesSettingsSchema } from './openai-images/openai-images-settings.ts';
import { OpenAiTranscriptionSettingsSchema } from './openai-transcription/openai-transcription-settings.ts';
import { PaddleOcrSettingsSchema } from './paddle-ocr/paddle-ocr-settings.ts';
import { SearxngSettingsSchema } from './searxng/searxng-settings.ts';
import { ZaiSettingsSchema } from './zai/zai-settings.ts';
import { WhisperCppSettingsSchema } from './whisper-cpp/whisper-cpp-settings.ts';

/**
 * The settings of each engine kind, by the kind's name (the `backend` of a config entry, part of the
 * public configuration). Apart from the factories (index.ts), so reading and checking a config file
 * (`config check`, `pull`) loads no engine code.
 */
export const backendSettings = {
  'openai-compatible': OpenAiCompatibleSettingsSchema,
  'llama-cpp': LlamaCppSettingsSchema,
  zai: ZaiSettingsSchema,
  'openai-images': OpenAiImagesSettingsSchema,
  comfyui: ComfyUiSettingsSchema,
  'paddle-ocr': PaddleOcrSettingsSchema,
  'glm-ocr': GlmOcrSettingsSchema,
  'openai-transcription': OpenAiTranscriptionSettingsSchema,
  'whisper-cpp': WhisperCppSettingsSchema,
  'local-index': LocalIndexSettingsSchema,
  searxng: SearxngSettingsSchema,
} as const satisfies Readonly<Record<string, TObject>>;

/** A config file's model entry: the settings of one engine kind, told apart by `backend`. */
export const modelEntrySchema: ModelEntrySchema = Type.Union(Object.values(backendSettings));
