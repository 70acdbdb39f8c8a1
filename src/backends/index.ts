import type { BackendKind } from '../core/config/backend-kinds.ts';
import type { BackendFactory } from '../core/engines/backend.ts';
import { createComfyUiBackend } from './comfyui/comfyui.backend.ts';
import { createGlmOcrBackend } from './glm-ocr/glm-ocr.backend.ts';
import { createLlamaCppBackend } from './llama-cpp/llama-cpp.backend.ts';
import { createLocalIndexBackend } from './local-index/local-index.backend.ts';
import { createOpenAiCompatibleBackend } from './openai-compatible/openai-compatible.backend.ts';
import { createOpenAiImagesBackend } from './openai-images/openai-images.backend.ts';
import { createPaddleOcrBackend } from './paddle-ocr/paddle-ocr.backend.ts';
import { createOpenAiTranscriptionBackend } from './openai-transcription/openai-transcription.backend.ts';
import { createSearxngBackend } from './searxng/searxng.backend.ts';
import { createZaiBackend } from './zai/zai.backend.ts';

/** The one table that maps a backend kind of the config file to the folder that implements it. */
export const backendFactories: Partial<Record<BackendKind, BackendFactory>> = {
  'openai-compatible': createOpenAiCompatibleBackend,
  'llama-cpp': createLlamaCppBackend,
  zai: createZaiBackend,
  'openai-images': createOpenAiImagesBackend,
  comfyui: createComfyUiBackend,
  'openai-transcription': createOpenAiTranscriptionBackend,
  'paddle-ocr': createPaddleOcrBackend,
  'glm-ocr': createGlmOcrBackend,
  'local-index': createLocalIndexBackend,
  searxng: createSearxngBackend,
};
