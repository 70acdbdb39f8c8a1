/** Backend kinds a model entry may name. The names are part of the public configuration. */
export const backendKinds = [
  'openai-compatible',
  'llama-cpp',
  'zai',
  'openai-images',
  'comfyui',
  'paddle-ocr',
  'glm-ocr',
  'openai-transcription',
  'local-index',
  'searxng',
] as const;

export type BackendKind = (typeof backendKinds)[number];
