import type { ModelEntry } from '../config/config.schema.ts';
import { defaultChatModel, platformModels } from './platform-models.ts';

/** Its weights (Q4_K_M, about 1 GB), fetched from the hub on first start or by `model-platform pull`. */
const defaultChatModelFile = 'hf://THUDM/glm-edge-1.5b-chat-gguf/ggml-model-Q4_K_M.gguf';

/**
 * Whisper base in whisper.cpp's format (multilingual, about 148 MB): the speech-to-text model that
 * runs with no configuration, on a few CPU cores, until an operator points glm-asr-2512 at a real one.
 */
const defaultTranscriptionModelFile = 'hf://ggerganov/whisper.cpp/ggml-base.bin';

/**
 * Models that work with no configuration, served by in-process engines (docs/architecture.md, "Composition"):
 * chat (and its tokenizer) on GLM-Edge through llama.cpp, transcription on Whisper through whisper.cpp, web search on the local index and layout
 * parsing on PaddleOCR. The config file's catalog overrides any of them.
 */
export const zeroConfigModels: Readonly<Record<string, ModelEntry>> = {
  [defaultChatModel]: { backend: 'llama-cpp', modelPath: defaultChatModelFile },
  ...Object.fromEntries(
    platformModels.transcribe.map((name) => [name, { backend: 'whisper-cpp', modelPath: defaultTranscriptionModelFile } satisfies ModelEntry]),
  ),
  ...Object.fromEntries(platformModels.search.map((name) => [name, { backend: 'local-index' } satisfies ModelEntry])),
  'glm-ocr': { backend: 'paddle-ocr' },
};
